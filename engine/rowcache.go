package engine

import (
	"cmp"
	"context"
	"slices"
	"sync"

	"github.com/cairn-dev/cairn"
)

// A long-lived process (an engine with a cache, `cairn serve`) keeps the
// memory rows it read as candidates found by their tags or file
// references (tagCandidates, fileRefCandidates), so that a row one of the
// blocks before read is not read from the store again. A prompt's block
// reads the memories tagged with any of its words, the newest 200 written,
// to keep the 20 created last: the tags of common words bring the same
// rows to many prompts (over the benchmark's prompts, about three in four
// of those rows had been read within the last 4,000 rows), and a row read
// from SQLite is a b-tree descent and most often a page read from the
// operating system's cache. A search's candidates are read from the store:
// few of them were read by a recent search.
//
// The rows kept are used only while the store's rows version stays the
// one they were read at (rowsVersioner: on SQLite, every commit but the
// server's own writes of uses, which leave the rows as they are until
// they are folded; on a store without it, its data version), and by a
// transaction that began after that version was read and before it
// changed, so that the rows a block reads, kept or not, are of one state
// of the database. The rows kept are shared: callers copy those they
// hand on (copyRow).
//
// rowShare bounds the bytes of the rows kept, as a share of the postings
// cache's size (64 MiB: 4 MiB): the rows read or used since the last
// half of it filled, and those of the half before (the older half goes
// when the newer fills). They start over whenever the version changes.
const rowShare = 16

type rowCache struct {
	mu      sync.Mutex
	version int64
	// rows are those read or used since old was rows; size is about how
	// many bytes each holds.
	rows, old     map[partDoc]*cairn.Memory
	size, oldSize int64
}

// get returns the row kept under k, moving it to the newer half.
func (c *rowCache) get(k partDoc, maxBytes int64) (*cairn.Memory, bool) {
	if m, ok := c.rows[k]; ok {
		return m, true
	}
	m, ok := c.old[k]
	if ok {
		delete(c.old, k)
		c.oldSize -= rowSize(m)
		c.put(k, m, maxBytes)
	}
	return m, ok
}

// put keeps m under k in the newer half, which becomes the older when it
// holds half of maxBytes.
func (c *rowCache) put(k partDoc, m *cairn.Memory, maxBytes int64) {
	if c.rows == nil || c.size >= maxBytes/2 {
		c.old, c.oldSize = c.rows, c.size
		// Made for as many rows as the half before came to hold: a map
		// grown to them a doubling at a time was 3% of the bytes of the
		// Edit hook's block at 1,000,000 memories.
		c.rows, c.size = make(map[partDoc]*cairn.Memory, max(256, len(c.old))), 0
	}
	if old, ok := c.rows[k]; ok {
		c.size -= rowSize(old)
	}
	c.rows[k] = m
	c.size += rowSize(m)
}

// rowSize is about how many bytes a kept row takes: its strings, the
// struct and the map's entry.
func rowSize(m *cairn.Memory) int64 {
	n := len(m.ID) + len(m.Project) + len(m.Type) + len(m.Key) + len(m.Title) + len(m.Content) + len(m.Agent) +
		len(m.Hat) + len(m.TaskID) + len(m.SessionID) + len(m.SupersededBy) + len(m.Flag) + len(m.ContentHash) + len(m.Partition)
	for _, t := range m.Tags {
		n += len(t) + 16
	}
	for _, r := range m.FileRefs {
		n += len(r) + 16
	}
	return int64(n + 640)
}

// rowsVersioner is a store that tells when its memory rows may have
// changed, more narrowly than its data version (sqlite.Store.RowsVersion).
type rowsVersioner interface {
	RowsVersion(ctx context.Context) (v int64, ok bool, err error)
}

// rowsVersion is the version the kept rows are valid at; ok is false when
// nothing may be kept.
func (e *Engine) rowsVersion(ctx context.Context) (int64, bool) {
	if rv, is := e.store.(rowsVersioner); is {
		v, ok, err := rv.RowsVersion(ctx)
		return v, ok && err == nil
	}
	return e.dataVersion(ctx)
}

// dataVersion is the store's data version, which every commit changes
// (this process's at once, others' as DataVersion tells of them); ok is
// false when the store reports none.
func (e *Engine) dataVersion(ctx context.Context) (int64, bool) {
	if !e.store.SupportsDataVersion() {
		return 0, false
	}
	v, err := e.store.DataVersion(ctx)
	return v, err == nil
}

// rowView is where the rows of one read transaction come from: the rows
// kept at version, when ok, else the store alone. The version is read
// before the transaction begins (rowsAt), and again at its first read of
// rows (by then the transaction reads one state of the database): the
// kept rows are used only when it is the same, since a transaction that
// began after a change must not mix the rows kept before it with its own.
type rowView struct {
	e        *Engine
	version  int64
	ok       bool
	checked  bool
	maxBytes int64
}

// rowsAt returns the row view of a read transaction about to begin: the
// kept rows of a long-lived engine whose store reports its rows or data
// version, else none.
func (e *Engine) rowsAt(ctx context.Context) *rowView {
	if e.cache == nil {
		return &rowView{}
	}
	v, ok := e.rowsVersion(ctx)
	return &rowView{e: e, version: v, ok: ok, maxBytes: e.cache.max / rowShare}
}

// copyRow is a copy of a row kept, for a caller to hand on: its own
// struct and slices (the strings are shared; Go strings do not change).
func copyRow(m *cairn.Memory) *cairn.Memory {
	c := *m
	c.Tags, c.FileRefs = slices.Clone(m.Tags), slices.Clone(m.FileRefs)
	return &c
}

// byDoc is tx.FindMemoriesByDoc, answered from the kept rows where it
// can: the memories of partition part numbered docs that exist, in
// document order (the order of the rows' ids on SQLite), each once. The
// caller must not change them: it copies those it hands on (copyRow).
func (rv *rowView) byDoc(ctx context.Context, tx cairn.Tx, part string, docs []int64) ([]*cairn.Memory, error) {
	if rv == nil || !rv.ok || len(docs) == 0 {
		return tx.FindMemoriesByDoc(ctx, part, docs)
	}
	if !rv.checked {
		// The transaction has read before (the index's statistics), so
		// it reads one state by now: the version's, if still the same.
		v, ok := rv.e.rowsVersion(ctx)
		rv.checked, rv.ok = true, ok && v == rv.version
		if !rv.ok {
			return tx.FindMemoriesByDoc(ctx, part, docs)
		}
	}
	c := &rv.e.cache.rows
	var out []*cairn.Memory
	var missing []int64
	c.mu.Lock()
	if c.version != rv.version {
		// The database changed, or this view is older than the rows
		// kept: nothing kept is used.
		if rv.version > c.version {
			c.version, c.rows, c.old, c.size, c.oldSize = rv.version, nil, nil, 0, 0
		}
		c.mu.Unlock()
		return rv.fetch(ctx, tx, part, docs)
	}
	for _, d := range docs {
		if m, ok := c.get(partDoc{part, d}, rv.maxBytes); ok {
			out = append(out, m)
		} else {
			missing = append(missing, d)
		}
	}
	c.mu.Unlock()
	if len(missing) > 0 {
		got, err := rv.fetch(ctx, tx, part, missing)
		if err != nil {
			return nil, err
		}
		out = append(out, got...)
	}
	slices.SortFunc(out, func(a, b *cairn.Memory) int { return cmp.Compare(a.DocNum, b.DocNum) })
	return slices.CompactFunc(out, func(a, b *cairn.Memory) bool { return a.DocNum == b.DocNum }), nil
}

// fetch reads the rows of docs from the store and keeps them while the
// database is at the view's version.
func (rv *rowView) fetch(ctx context.Context, tx cairn.Tx, part string, docs []int64) ([]*cairn.Memory, error) {
	ms, err := tx.FindMemoriesByDoc(ctx, part, docs)
	if err != nil || len(ms) == 0 {
		return ms, err
	}
	c := &rv.e.cache.rows
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.version != rv.version {
		return ms, nil // the database changed since: these may be stale already
	}
	for _, m := range ms {
		c.put(partDoc{part, m.DocNum}, m, rv.maxBytes)
	}
	return ms, nil
}

// rowBytes is about how many bytes the kept rows hold.
func (c *postingsCache) rowBytes() int64 {
	c.rows.mu.Lock()
	defer c.rows.mu.Unlock()
	return c.rows.size + c.rows.oldSize
}
