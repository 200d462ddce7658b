package engine

import (
	"bytes"
	"container/list"
	"context"
	"sync"
	"unsafe"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// postingsCache keeps recently read postings in memory, ready for scoring
// (index.Prepare), for a long-lived process (`cairn serve`), so that a
// search reads little or nothing from the store. An entry is valid while
// its partition's postings stamp (postingsStampOf) is the one it was read
// under: every change to a partition's postings changes it, so a stale
// entry is never used, even when other processes write to the store,
// while a removal, which leaves the postings as they are, does not.
type postingsCache struct {
	mu      sync.Mutex
	max     int64
	size    int64
	lru     *list.List // of *cacheEntry, most recent first
	entries map[cacheKey]*list.Element

	// tierSets are the static and dynamic tiers' query results, by
	// request shape, with the rows version they were read at.
	tierSets map[string]tierSet

	// shown are, by session, the memories already put into that session,
	// read from the activity log up to an entry id.
	shown map[string]*sessionShown

	// retrievals are recent searches' hits before ranking (searchcache.go).
	retrievals retrievalCache

	// masks are the documents that searches narrowed to types skip
	// (typemask.go).
	masks map[maskKey]typeMask

	// expiries are the documents that searches skip as expired
	// (expirymask.go).
	expiries map[expiryKey]expiryMask
	// expiryReads are the masks being read on other goroutines, which
	// expiryWG counts; a partition numbering up to expiryInline
	// documents is read by the search itself (expiryReadInline).
	expiryReads  map[expiryKey]bool
	expiryWG     sync.WaitGroup
	expiryInline int64

	// deads are the partitions' dead sets, decoded (deadSet).
	deads map[string]deadEntry

	// rows are memory rows read by document (rowcache.go).
	rows rowCache

	// stats are the partitions' statistics, without their dead sets, at
	// an index version (searchStats).
	stats keptStats
}

// deadEntry is a partition's dead set as stored and decoded, and the
// statistics it was read with.
type deadEntry struct {
	stamp    statsStamp
	analyzer int
	raw      []byte
	set      index.DeadSet
}

// maxDeadSets bounds the dead sets kept: one per partition searched.
const maxDeadSets = 64

// deadSet returns the decoded dead set of a partition whose statistics
// are ps, read whole (Tx.Partition; index.DecodeDead); the caller must
// not change it. A long-lived engine keeps the decoding while the stored
// set is the same: a partition with many removed documents stores
// hundreds of kilobytes (a million memories after a cleanup: 180 KB),
// whose decoding would otherwise cost every search a millisecond. It
// keeps an empty set too, so that searchDead finds it by the statistics
// and the partition is not read whole again.
func (e *Engine) deadSet(ps *cairn.PartitionStats) (index.DeadSet, error) {
	c := e.cache
	if c == nil {
		return index.DecodeDead(ps.Dead)
	}
	c.mu.Lock()
	d, ok := c.deads[ps.Name]
	c.mu.Unlock()
	if !ok || !bytes.Equal(d.raw, ps.Dead) {
		set, err := index.DecodeDead(ps.Dead)
		if err != nil {
			return nil, err
		}
		d = deadEntry{raw: ps.Dead, set: set}
	}
	d.stamp, d.analyzer = stampOf(ps), ps.Analyzer
	c.mu.Lock()
	if c.deads == nil || len(c.deads) >= maxDeadSets {
		c.deads = map[string]deadEntry{}
	}
	c.deads[ps.Name] = d
	c.mu.Unlock()
	return d.set, nil
}

// searchStats returns a partition's statistics for a search. A
// long-lived engine reads them without the dead set (Tx.PartitionCounts,
// whole says false), which searchDead then takes from what it keeps; in
// a transaction of indexView, it takes them from those it keeps at the
// index version, when it has them.
func (e *Engine) searchStats(ctx context.Context, tx cairn.Tx, name string) (ps *cairn.PartitionStats, whole bool, err error) {
	if e.cache == nil {
		ps, err = tx.Partition(ctx, name)
		return ps, true, err
	}
	sv, _ := ctx.Value(statsViewKey{}).(*statsView)
	c := e.cache
	if sv != nil {
		c.mu.Lock()
		kept, ok := c.stats.stats[name]
		ok = ok && c.stats.version == sv.version
		c.mu.Unlock()
		if ok {
			sv.served = true
			return &kept, false, nil
		}
	}
	if ps, err = tx.PartitionCounts(ctx, name); err != nil || sv == nil {
		return ps, false, err
	}
	// Read in a transaction that began after the version was read: if
	// the index changed in between, the version has changed too, and
	// these are never used.
	c.mu.Lock()
	if k := c.keptStatsAt(sv.version); k != nil {
		if len(k.stats) >= maxKeptStats {
			k.stats = map[string]cairn.PartitionStats{}
		}
		k.stats[name] = *ps
	}
	c.mu.Unlock()
	return ps, false, err
}

// searchDead returns the decoded dead set of a partition whose statistics
// searchStats returned (see deadSet), with the statistics to search it
// with. Without the set in ps, it is the one kept for the same
// statistics: every change to a partition's dead set changes them (a
// removal lowers Docs and raises DeadDocs, a compaction lowers DeadDocs),
// which the postings kept rely on too; else the partition is read whole,
// in the same transaction.
func (e *Engine) searchDead(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, whole bool) (*cairn.PartitionStats, index.DeadSet, error) {
	if !whole {
		c := e.cache
		c.mu.Lock()
		d, ok := c.deads[ps.Name]
		c.mu.Unlock()
		if ok && d.stamp == stampOf(ps) && d.analyzer == ps.Analyzer {
			return ps, d.set, nil
		}
		var err error
		if ps, err = tx.Partition(ctx, ps.Name); err != nil {
			return nil, nil, err
		}
	}
	set, err := e.deadSet(ps)
	if err != nil {
		return nil, nil, cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q", ps.Name)
	}
	return ps, set, nil
}

type cacheKey struct{ part, term string }

type statsStamp struct{ docs, totalLen, nextDoc, deadDocs int64 }

type cacheEntry struct {
	key   cacheKey
	stamp postingsStamp
	p     *index.Postings // empty Data: the term has no postings
}

func stampOf(ps *cairn.PartitionStats) statsStamp {
	return statsStamp{ps.Docs, ps.TotalLen, ps.NextDoc, ps.DeadDocs}
}

// postingsStamp is what a partition's postings are made of: the documents
// numbered so far (NextDoc: a new document's postings are appended), how
// many of them the postings hold (Docs + DeadDocs: a removal moves one
// from Docs to DeadDocs and leaves the postings as they are, a compaction
// takes documents out of both), and the rules they were made by
// (Analyzer: a rebuild). The postings of documents dead when a
// compaction in steps began may go before its last step changes the
// stamp; searches leave those documents out all along (compactInSteps).
// A long-lived engine keeps postings and type masks across the removals
// of a cleanup, which change the statistics at every page it commits.
type postingsStamp struct {
	nextDoc, indexed int64
	analyzer         int
}

func postingsStampOf(ps *cairn.PartitionStats) postingsStamp {
	return postingsStamp{ps.NextDoc, ps.Docs + ps.DeadDocs, ps.Analyzer}
}

func newPostingsCache(maxBytes int64) *postingsCache {
	return &postingsCache{max: maxBytes, lru: list.New(), entries: map[cacheKey]*list.Element{}, expiryInline: expiryReadInline}
}

func (c *postingsCache) get(k cacheKey, st postingsStamp) (*index.Postings, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	el, ok := c.entries[k]
	if !ok {
		return nil, false
	}
	e := el.Value.(*cacheEntry)
	if e.stamp != st {
		c.remove(el)
		return nil, false
	}
	c.lru.MoveToFront(el)
	return e.p, true
}

// entryOverhead is what an entry holds besides its postings and its
// key's text: its cacheEntry, its element of the list and its slot in the
// map (a key of two string headers and a pointer, in a table kept at most
// seven eighths full).
const entryOverhead = int(unsafe.Sizeof(cacheEntry{})) + int(unsafe.Sizeof(list.Element{})) +
	(int(unsafe.Sizeof(cacheKey{}))+8)*8/7

// entrySize is how many bytes an entry holds: its postings (index.Postings.Size,
// what they were allocated with), its key's text and entryOverhead. The
// cache's bound and Engine.ResidentBytes count entries by it alone, so that
// what an entry comes to hold is counted here.
func entrySize(k cacheKey, p *index.Postings) int64 {
	return int64(p.Size() + len(k.term) + len(k.part) + entryOverhead)
}

func (c *postingsCache) put(k cacheKey, st postingsStamp, p *index.Postings) {
	n := entrySize(k, p)
	if n > c.max/8 {
		return // one term must not evict everything else
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if el, ok := c.entries[k]; ok {
		c.remove(el)
	}
	c.entries[k] = c.lru.PushFront(&cacheEntry{key: k, stamp: st, p: p})
	c.size += n
	for c.size > c.max {
		c.remove(c.lru.Back())
	}
}

func (c *postingsCache) remove(el *list.Element) {
	e := c.lru.Remove(el).(*cacheEntry)
	delete(c.entries, e.key)
	c.size -= entrySize(e.key, e.p)
}

// postings returns the postings of terms in a partition whose statistics
// are ps, from the cache when there is one.
func (e *Engine) postings(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, terms []string) ([]cairn.TermPostings, error) {
	if e.cache == nil {
		return tx.Postings(ctx, ps.Name, terms)
	}
	got, err := e.preparedPostings(ctx, tx, ps, terms)
	if err != nil {
		return nil, err
	}
	out := make([]cairn.TermPostings, len(got))
	for i, p := range got {
		out[i] = p.TermPostings
	}
	return out, nil
}

// preparedPostings returns the postings of terms in a partition whose
// statistics are ps, checked and ready for scoring (index.Prepare), from
// the cache when there is one. They come in the order of terms, whatever
// the cache holds, so that a document's score is summed in the same order
// in every search; terms without postings are left out.
func (e *Engine) preparedPostings(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, terms []string) ([]*index.Postings, error) {
	st := postingsStampOf(ps)
	byTerm := make(map[string]*index.Postings, len(terms))
	var missing []string
	for _, t := range terms {
		if e.cache != nil {
			if p, ok := e.cache.get(cacheKey{ps.Name, t}, st); ok {
				byTerm[t] = p
				continue
			}
		}
		missing = append(missing, t)
	}
	if len(missing) > 0 {
		got, err := tx.Postings(ctx, ps.Name, missing)
		if err != nil {
			return nil, err
		}
		for _, tp := range got {
			p, err := index.Prepare(tp)
			if err != nil {
				return nil, cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q at term %q", ps.Name, tp.Term)
			}
			byTerm[tp.Term] = p
			if e.cache != nil {
				e.cache.put(cacheKey{ps.Name, tp.Term}, st, p)
			}
		}
		if e.cache != nil {
			for _, t := range missing {
				if byTerm[t] == nil {
					e.cache.put(cacheKey{ps.Name, t}, st, &index.Postings{TermPostings: cairn.TermPostings{Term: t}})
				}
			}
		}
	}
	out := make([]*index.Postings, 0, len(terms))
	for _, t := range terms {
		if p := byTerm[t]; p != nil && len(p.Data) > 0 {
			out = append(out, p)
			delete(byTerm, t) // a term asked for twice is scored once
		}
	}
	return out, nil
}

// docFreqs is Tx.DocFreqs, answered from cached postings where it can.
func (e *Engine) docFreqs(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, terms []string) (map[string]int64, error) {
	if e.cache == nil {
		return tx.DocFreqs(ctx, ps.Name, terms)
	}
	st := postingsStampOf(ps)
	out := map[string]int64{}
	var missing []string
	for _, t := range terms {
		if p, ok := e.cache.get(cacheKey{ps.Name, t}, st); ok {
			if len(p.Data) > 0 {
				out[t] = p.DF
			}
			continue
		}
		missing = append(missing, t)
	}
	if len(missing) > 0 {
		got, err := tx.DocFreqs(ctx, ps.Name, missing)
		if err != nil {
			return nil, err
		}
		for t, df := range got {
			out[t] = df
		}
	}
	return out, nil
}

// warmMinDF is the document frequency from which Warm preloads a term:
// rarer terms have short postings that are cheap to read when needed.
const warmMinDF = 32

// Warm loads the postings of a project's frequent terms (and of the
// global-scope memories) into the cache, up to its size, so that the
// first searches of a long-lived process are as fast as later ones. It
// returns how many terms it loaded. Without a cache it does nothing.
func (e *Engine) Warm(ctx context.Context, project string) (int, error) {
	if e.cache == nil {
		return 0, nil
	}
	loaded := 0
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		for _, part := range []string{project, ""} {
			ps, err := tx.Partition(ctx, part)
			if err != nil {
				return err
			}
			st := postingsStampOf(ps)
			for after := ""; ; {
				tps, err := tx.ScanPostings(ctx, part, after, 1000)
				if err != nil {
					return err
				}
				if len(tps) == 0 {
					break
				}
				for _, tp := range tps {
					if tp.DF >= warmMinDF {
						p, err := index.Prepare(tp)
						if err != nil {
							return cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q at term %q", part, tp.Term)
						}
						e.cache.put(cacheKey{part, tp.Term}, st, p)
						loaded++
					}
				}
				after = tps[len(tps)-1].Term
				if e.cache.full() {
					return nil
				}
			}
		}
		return nil
	})
	return loaded, err
}

// ResidentBytes is about how many bytes the engine keeps in memory from
// one request to the next: its caches (the postings, the kept searches
// and the kept rows, each within its bound, Options.CacheBytes; the decoded dead
// sets of the partitions searched and their expiry masks) and its vector indexes. A long-lived process sizes its memory limit from it.
func (e *Engine) ResidentBytes() int64 {
	var n int64
	if c := e.cache; c != nil {
		c.mu.Lock()
		n += c.size
		for _, d := range c.deads {
			n += int64(len(d.raw) + 8*len(d.set))
		}
		for _, m := range c.expiries {
			n += m.bytes()
		}
		c.mu.Unlock()
		c.retrievals.mu.Lock()
		n += c.retrievals.size
		c.retrievals.mu.Unlock()
		n += c.rowBytes()
	}
	e.vstate.mu.Lock()
	for _, pv := range e.vstate.indexes {
		// A hash is a string header and about 64 bytes of text.
		n += int64(pv.ix.Bytes() + len(pv.foreign) + 80*len(pv.hashes))
	}
	e.vstate.mu.Unlock()
	return n
}

func (c *postingsCache) full() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.size >= c.max*9/10
}

// keptStats are partitions' statistics without their dead sets
// (Tx.PartitionCounts), by partition, as read at an index version.
type keptStats struct {
	version int64
	stats   map[string]cairn.PartitionStats
	// docs are the partitions' numbers of documents (Tx.PartitionDocs),
	// when read at version.
	docs map[string]int64
}

// maxKeptStats bounds the partitions whose statistics are kept.
const maxKeptStats = 64

// indexVersioner is a store that tells when its search index may have
// changed, more narrowly than its data version (sqlite.Store.IndexVersion:
// the writes of uses, which a server makes after every answer, leave it).
type indexVersioner interface {
	// IndexVersion may tell of another process's commit a moment
	// late; IndexVersionNow tells of every commit made before it.
	IndexVersion(ctx context.Context) (v int64, ok bool, err error)
	IndexVersionNow(ctx context.Context) (v int64, ok bool, err error)
}

// statsView is where the partitions' statistics of one read transaction
// (indexView) come from: those kept at version, when ok, else the store.
// served says some were kept ones.
type statsView struct {
	version int64
	ok      bool
	served  bool
}

type statsViewKey struct{}

// indexView runs fn in a read transaction, in which a long-lived engine
// whose store reports its index version searches with the partitions'
// statistics it keeps (searchStats) rather than read them again: a hook's
// call reads them in each of its searches, and they change only with the
// index. The version is read before the transaction, and the statistics
// kept are used only at that version; a transaction's state is the
// database's as of its first read, which comes after, so the version is
// read again after fn, as of then (IndexVersionNow; the reading before
// may tell of another process's commit a moment late): if it changed
// meanwhile, or the reading before missed a commit the transaction
// sees, fn may have mixed the statistics kept with what the transaction
// read, and runs again in a new transaction with the statistics read
// there. What the first run kept meanwhile is under the older
// statistics' stamps: postings read after them may hold later documents,
// which a search skips (documents at or past NextDoc), as it does those
// of an expiry mask read after its statistics.
func (e *Engine) indexView(ctx context.Context, fn func(ctx context.Context, tx cairn.Tx) error) error {
	sv := e.statsAt(ctx)
	if !sv.ok {
		return e.store.View(ctx, func(tx cairn.Tx) error { return fn(ctx, tx) })
	}
	vctx := context.WithValue(ctx, statsViewKey{}, sv)
	err := e.store.View(ctx, func(tx cairn.Tx) error { return fn(vctx, tx) })
	if err != nil || !sv.served {
		return err
	}
	if v, ok := e.indexVersion(ctx, true); ok && v == sv.version {
		return nil
	}
	return e.store.View(ctx, func(tx cairn.Tx) error { return fn(ctx, tx) })
}

// statsAt returns the statistics view of a read transaction about to
// begin.
func (e *Engine) statsAt(ctx context.Context) *statsView {
	if e.cache == nil {
		return &statsView{}
	}
	v, ok := e.indexVersion(ctx, false)
	return &statsView{version: v, ok: ok}
}

// indexVersion is the store's index version, telling of every commit
// made before the call when now is set (else of other processes' a
// moment late); ok is false when it reports none, or nothing may be
// kept under it now.
func (e *Engine) indexVersion(ctx context.Context, now bool) (int64, bool) {
	iv, is := e.store.(indexVersioner)
	if !is {
		return 0, false
	}
	read := iv.IndexVersion
	if now {
		read = iv.IndexVersionNow
	}
	v, ok, err := read(ctx)
	return v, ok && err == nil
}

// partitionDocs is tx.PartitionDocs; in a transaction of indexView, from
// what is kept at the index version (see searchStats). The caller must
// not change the map.
func (e *Engine) partitionDocs(ctx context.Context, tx cairn.Tx) (map[string]int64, error) {
	sv, _ := ctx.Value(statsViewKey{}).(*statsView)
	if sv == nil {
		return tx.PartitionDocs(ctx)
	}
	c := e.cache
	c.mu.Lock()
	docs := c.stats.docs
	if c.stats.version != sv.version {
		docs = nil
	}
	c.mu.Unlock()
	if docs != nil {
		sv.served = true
		return docs, nil
	}
	docs, err := tx.PartitionDocs(ctx)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if k := c.keptStatsAt(sv.version); k != nil {
		k.docs = docs
	}
	c.mu.Unlock()
	return docs, nil
}

// keptStatsAt returns what is kept of the partitions at the index
// version: made anew when version is newer than what is kept, nil when
// what is kept is newer (what a transaction read at an older version is
// not kept). c.mu must be held.
func (c *postingsCache) keptStatsAt(version int64) *keptStats {
	if version > c.stats.version || c.stats.stats == nil {
		c.stats = keptStats{version: version, stats: map[string]cairn.PartitionStats{}}
	}
	if c.stats.version != version {
		return nil
	}
	return &c.stats
}
