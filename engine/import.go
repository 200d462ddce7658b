package engine

import (
	"context"
	"fmt"
	"hash/maphash"
	"iter"
	"runtime"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/ordered"
)

// importFlushEvery bounds the postings an import holds in memory: after
// this many memories they are appended to the store (same transaction).
const importFlushEvery = 50_000

// Import stores the records in one transaction: all or nothing, unless
// opts.SkipInvalid, which stores the valid records and reports the rest.
// Records keep their id, project and created_at. A record whose id is
// already stored is left alone when unchanged and replaced when its
// updated_at is newer; otherwise records go through the same dedup as
// AddMemory, so importing the same file twice changes nothing.
//
// Without SkipInvalid, the first bad record fails the import with
// EINVALID and a message naming its line. A cancelled ctx stops it at
// once, even while it waits for records, and nothing is written
// (EUNAVAILABLE).
func (e *Engine) Import(ctx context.Context, records iter.Seq[cairn.ImportRecord], opts cairn.ImportOptions) (*cairn.ImportReport, error) {
	rep := &cairn.ImportReport{Skipped: []cairn.ImportProblem{}}
	now := e.Now()
	err := e.store.Update(ctx, func(tx cairn.Tx) error {
		if tx.SupportsBulk() {
			if err := tx.Bulk(ctx); err != nil {
				return err
			}
		}
		b := newIndexBatch()
		known, err := loadKnownKeys(ctx, tx)
		if err != nil {
			return err
		}
		// The records of the import's project get its stored settings'
		// type policies; a record of another project keeps the engine's.
		own, err := e.inProjectTx(ctx, tx, opts.Project)
		if err != nil {
			return err
		}
		pending := 0
		// Activity entries are written with the index, in batches.
		var acts []cairn.Activity
		// Records are validated and analysed on every core while this
		// goroutine writes.
		done := make(chan struct{})
		defer close(done)
		prepared := e.prepareImports(records, opts, now, done, own)
		for {
			// Waiting for the next record also waits for the context: a
			// source that yields nothing (an endless line, a silent pipe)
			// cannot hold a cancelled import open.
			var p preparedImport
			var more bool
			select {
			case p, more = <-prepared:
			case <-ctx.Done():
				return cairn.WrapError(cairn.EUNAVAILABLE, ctx.Err(), "import cancelled; nothing was imported")
			}
			if !more {
				break
			}
			rec := p.rec
			if err := ctx.Err(); err != nil {
				return cairn.WrapError(cairn.EUNAVAILABLE, err, "import cancelled; nothing was imported")
			}
			if rec.Line > 0 || rec.Memory != nil {
				rep.Read++
			}
			stored, status, err := e.importOne(ctx, tx, b, p, now, known)
			if err != nil {
				if cairn.ErrorCode(err) != cairn.EINVALID && cairn.ErrorCode(err) != cairn.ECONFLICT {
					return err // the store failed: nothing is kept
				}
				if !opts.SkipInvalid {
					return cairn.WrapError(cairn.EINVALID, nil, "%s; nothing was imported (use --skip-invalid to import the valid records)", lineError(rec.Line, err))
				}
				rep.Skipped = append(rep.Skipped, cairn.ImportProblem{Line: rec.Line, Message: cairn.ErrorMessage(err)})
				continue
			}
			if a, ok := writeActivity(&cairn.WriteResult{Memory: stored, Status: status}, now, "", "imported"); ok {
				acts = append(acts, a)
			}
			switch status {
			case cairn.StatusCreated:
				rep.Created++
			case cairn.StatusUpdated:
				rep.Updated++
			case cairn.StatusReinforced:
				rep.Reinforced++
			default:
				rep.Unchanged++
			}
			if pending++; pending >= importFlushEvery {
				if err := b.flush(ctx, tx); err != nil {
					return err
				}
				if err := tx.AppendActivity(ctx, acts); err != nil {
					return err
				}
				pending, acts = 0, acts[:0]
			}
		}
		if err := tx.AppendActivity(ctx, acts); err != nil {
			return err
		}
		return b.flush(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return rep, nil
}

func lineError(line int, err error) string {
	if line == 0 {
		return cairn.ErrorMessage(err)
	}
	return fmt.Sprintf("line %d: %s", line, cairn.ErrorMessage(err))
}

// preparedImport is a record made ready for storing, away from the
// writing goroutine: validated, defaults filled, and its index terms found.
type preparedImport struct {
	rec                                 cairn.ImportRecord
	err                                 error
	givenID, givenCreated, givenUpdated bool
	analysis                            *analysis
}

// prepareChunk is how many records a preparing goroutine takes at a time.
const prepareChunk = 64

// prepareImports runs prepareImport over records on every core, and
// hands the results over in the order of records, on a goroutine of its
// own that stops early when done is closed. Ids are given there, in that
// order, as a sequence of AddMemory calls would give them.
func (e *Engine) prepareImports(records iter.Seq[cairn.ImportRecord], opts cairn.ImportOptions, now time.Time, done <-chan struct{}, own *Engine) <-chan preparedImport {
	ch := make(chan preparedImport, 512)
	prepare := func(rec cairn.ImportRecord) preparedImport {
		if rec.Memory != nil && (rec.Memory.Project == "" || rec.Memory.Project == opts.Project) {
			return own.prepareImport(rec, opts, now)
		}
		return e.prepareImport(rec, opts, now)
	}
	go func() {
		defer close(ch)
		for p := range ordered.Map(records, runtime.GOMAXPROCS(0), prepareChunk, prepare) {
			if p.err == nil && p.rec.Memory.ID == "" {
				p.rec.Memory.ID = e.ids.next(now)
			}
			select {
			case ch <- p:
			case <-done:
				return
			}
		}
	}()
	return ch
}

// prepareImport validates rec and analyses its text; the memory gets its
// id later (see prepareImports). It may run on several goroutines at once.
func (e *Engine) prepareImport(rec cairn.ImportRecord, opts cairn.ImportOptions, now time.Time) preparedImport {
	p := preparedImport{rec: rec}
	if rec.Err != nil {
		if rec.Line == 0 {
			p.err = cairn.WrapError(cairn.EUNAVAILABLE, rec.Err, "cannot read the import")
		} else {
			p.err = cairn.Errorf(cairn.EINVALID, "%s", rec.Err.Error())
		}
		return p
	}
	m := rec.Memory
	if m.Project == "" {
		m.Project = opts.Project
	}
	if m.Source == "" {
		m.Source = cairn.SourceImported
	}
	p.givenID, p.givenCreated, p.givenUpdated = m.ID != "", !m.CreatedAt.IsZero(), !m.UpdatedAt.IsZero()
	if p.err = e.prepareFields(m, now); p.err == nil {
		p.analysis = analyze(m)
	}
	return p
}

// importOne stores one prepared record and returns the memory it wrote (nil
// when unchanged) and what happened.
func (e *Engine) importOne(ctx context.Context, tx cairn.Tx, b *indexBatch, p preparedImport, now time.Time, known *knownKeys) (*cairn.Memory, string, error) {
	if p.err != nil {
		return nil, "", p.err
	}
	m := p.rec.Memory
	givenID, givenCreated, givenUpdated := p.givenID, p.givenCreated, p.givenUpdated
	b.pre = p.analysis
	defer func() { b.pre = nil }()
	if givenID && known.hasID(m.ID) {
		old, err := tx.FindMemoryByID(ctx, m.ID)
		switch {
		case err == nil:
			// Times the record leaves out are the stored ones, not "now".
			if !givenCreated {
				m.CreatedAt = old.CreatedAt
			}
			if !givenCreated && !givenUpdated {
				m.UpdatedAt = old.UpdatedAt
			}
			status, err := e.importExisting(ctx, tx, b, old, m)
			if err == nil {
				known.add(m.ID, m.Project, m.ContentHash)
				known.fresh[m.ID] = struct{}{}
			}
			return m, status, err
		case cairn.ErrorCode(err) != cairn.ENOTFOUND:
			return nil, "", err
		}
	}
	if !givenID && m.Key == "" && known.hasHash(m.Project, m.ContentHash) {
		// A record without id that was stored as it is before this import
		// is the same record imported again: it changes nothing. (Adding
		// the same content by hand, or twice in one import, reinforces it.)
		same, err := tx.FindMemoriesByHash(ctx, m.Project, m.ContentHash)
		if err != nil {
			return nil, "", err
		}
		for _, old := range same {
			if !known.wroteNow(old.ID) && old.Live(now) && old.Type == m.Type && subset(m.Tags, old.Tags) && subset(m.FileRefs, old.FileRefs) {
				return nil, cairn.StatusUnchanged, nil
			}
		}
	}
	res, err := e.add(ctx, tx, b, m, now, known, false)
	if err != nil {
		return nil, "", err
	}
	known.add(res.Memory.ID, res.Memory.Project, res.Memory.ContentHash)
	known.fresh[res.Memory.ID] = struct{}{}
	return res.Memory, res.Status, nil
}

// importExisting handles a record whose id is stored: unchanged, newer
// (replace), or older (keep what is stored).
func (e *Engine) importExisting(ctx context.Context, tx cairn.Tx, b *indexBatch, old, m *cairn.Memory) (string, error) {
	if old.Project != m.Project {
		return "", cairn.Errorf(cairn.ECONFLICT, "id %s is already used by a memory of project %q", m.ID, old.Project)
	}
	m.Partition, m.DocNum = old.Partition, old.DocNum
	if equalMemory(old, m) || !m.UpdatedAt.After(old.UpdatedAt) {
		return cairn.StatusUnchanged, nil
	}
	if m.Key != "" && (m.Key != old.Key || m.Type != old.Type) {
		if other, err := tx.FindMemoryByKey(ctx, m.Project, m.Type, m.Key); err == nil && other.ID != m.ID {
			return "", cairn.Errorf(cairn.ECONFLICT, "memory %s already has type %s and key %q", other.ID, m.Type, m.Key)
		}
	}
	if err := b.reindex(ctx, tx, old, m); err != nil {
		return "", err
	}
	if err := tx.UpdateMemory(ctx, m); err != nil {
		return "", err
	}
	return cairn.StatusUpdated, nil
}

// knownKeys is what an import knows of the stored memories: their ids and
// content hashes, read once, so that most records need no lookup. Ids and
// hashes are kept as 64-bit hashes, in maps the garbage collector need not
// scan (an import of a million memories keeps a million of each): a hit
// may be a collision, which the store's lookup that follows a hit
// settles, so a collision costs a lookup and changes nothing else. Used by
// one goroutine.
type knownKeys struct {
	ids    map[uint64]struct{}
	hashes map[uint64]struct{} // of project + "\x00" + hash
	fresh  map[string]struct{} // ids written by this import, exactly
	h      maphash.Hash
}

func loadKnownKeys(ctx context.Context, tx cairn.Tx) (*knownKeys, error) {
	k := &knownKeys{ids: map[uint64]struct{}{}, hashes: map[uint64]struct{}{}, fresh: map[string]struct{}{}}
	err := tx.ScanMemoryKeys(ctx, func(id, project, hash string) {
		k.add(id, project, hash)
	})
	return k, err
}

func (k *knownKeys) idKey(id string) uint64 {
	k.h.Reset()
	k.h.WriteString(id)
	return k.h.Sum64()
}

func (k *knownKeys) hashKey(project, hash string) uint64 {
	k.h.Reset()
	k.h.WriteString(project)
	k.h.WriteByte(0)
	k.h.WriteString(hash)
	return k.h.Sum64()
}

func (k *knownKeys) add(id, project, hash string) {
	k.ids[k.idKey(id)] = struct{}{}
	k.hashes[k.hashKey(project, hash)] = struct{}{}
}

// hasID reports whether a memory with this id may be stored.
func (k *knownKeys) hasID(id string) bool {
	_, ok := k.ids[k.idKey(id)]
	return ok
}

// hasHash reports whether a memory of project with this content hash may
// be stored.
func (k *knownKeys) hasHash(project, hash string) bool {
	_, ok := k.hashes[k.hashKey(project, hash)]
	return ok
}

// subset reports whether every element of a is in b.
func subset(a, b []string) bool {
	for _, x := range a {
		if !slices.Contains(b, x) {
			return false
		}
	}
	return true
}

// wroteNow reports whether this import wrote the memory: a repeat of it
// within the same import is folded into it like a repeated add.
func (k *knownKeys) wroteNow(id string) bool {
	_, ok := k.fresh[id]
	return ok
}
