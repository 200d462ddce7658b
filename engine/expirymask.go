package engine

import (
	"context"
	"slices"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// A search's candidates are the best-scoring documents of memories not
// expired at its clock (liveTop). Rather than score the expired ones and
// load their rows to find them out, a long-lived engine skips, as it
// skips dead documents, those whose memory had expired by the start of
// the search's UTC day: an expiry mask, read from the store
// (Tx.ExpiredDocs) once a day and partition, then for the documents
// written since only. The few that expired later that day are found out
// by their rows, as before.
//
// A document's expiry never moves later while the mask holds it: a
// change that moves a memory's expiry later (or removes it) gives the
// memory a new document (indexBatch.reindex), whatever process makes
// it, so that the documents a mask holds stay expired, or are dead. An
// expiry moved earlier leaves the document in place: a mask without it
// still holds only expired ones. So a mask is extended, never read
// again whole, while the partition's documents are numbered on from
// where it stopped.

// maxExpiryMasks bounds the masks kept: one per partition searched and
// day of the clock searched at.
const maxExpiryMasks = 16

// expiryReadInline is the most documents a partition may number for a
// search to read its expired documents itself when it has no mask for
// its day: a larger one's are read by another goroutine (1,000,000
// memories, 183,063 of them expired: 90-150 ms), while searches use the
// partition's mask of an earlier day, or none.
const expiryReadInline = 20000

type expiryKey struct {
	part string
	day  int64 // the start of the day, in Unix seconds
}

type expiryMask struct {
	// expired are the documents below next whose memory had expired
	// before the day began.
	next    int64
	expired index.DeadSet
	// skips are expired joined with each dead set searches of the
	// statistics stamped stamp passed: the partition's own, and one for
	// each set of types a narrowed search skips the others of
	// (skipOtherTypes), so that searches of both kinds in turn do not
	// join them anew each time.
	stamp statsStamp
	skips []joinedSkip
}

// joinedSkip is a dead set and its join with a mask's expired documents.
type joinedSkip struct{ dead, skip index.DeadSet }

// maxJoinedSkips bounds the joins a mask keeps: one per dead set in use.
const maxJoinedSkips = 8

// joined returns the kept join of dead, if any, for statistics stamped st.
func (m *expiryMask) joined(st statsStamp, dead index.DeadSet) (index.DeadSet, bool) {
	if m.stamp != st {
		return nil, false
	}
	for _, j := range m.skips {
		if sameSet(j.dead, dead) {
			return j.skip, true
		}
	}
	return nil, false
}

// keep records skip as the join of dead for statistics stamped st,
// forgetting the joins of other statistics.
func (m *expiryMask) keep(st statsStamp, dead, skip index.DeadSet) {
	if m.stamp != st || len(m.skips) >= maxJoinedSkips {
		m.stamp, m.skips = st, nil
	}
	// A copy: a search in flight may read the slice it was handed.
	m.skips = append(slices.Clip(m.skips), joinedSkip{dead, skip})
}

// bytes is about how many bytes m holds.
func (m *expiryMask) bytes() int64 {
	n := len(m.expired)
	for _, j := range m.skips {
		n += len(j.skip)
	}
	return 8 * int64(n)
}

// expiryDay is the start of now's UTC day: the memories whose expiry is
// before it have surely expired at now.
func expiryDay(now time.Time) time.Time {
	return now.UTC().Truncate(24 * time.Hour)
}

// skipExpired returns dead with the partition's documents whose memory
// expired before a time at or before now added, and that time: the
// start of now's UTC day (see expiryDay), or of an earlier day while the
// mask of now's is being read; dead is the set a search of ps skips,
// whose statistics ps are. An engine without a cache skips none (the
// zero time): reading a million rows' expiries would cost a one-off
// search more than it saves.
func (e *Engine) skipExpired(ctx context.Context, tx cairn.Tx, ps *cairn.PartitionStats, dead index.DeadSet, now time.Time) (index.DeadSet, time.Time, error) {
	c := e.cache
	if c == nil || now.IsZero() {
		return dead, time.Time{}, nil
	}
	day := expiryDay(now)
	key, st := expiryKey{ps.Name, day.Unix()}, stampOf(ps)
	c.mu.Lock()
	m, ok := c.expiries[key]
	if !ok && ps.NextDoc > c.expiryInline {
		c.readExpiries(e.store, ps.Name, day)
		key, m, ok = c.earlierExpiries(ps.Name, day)
	}
	c.mu.Unlock()
	if !ok && ps.NextDoc > c.expiryInline {
		return dead, time.Time{}, nil
	}
	if ok && m.next >= ps.NextDoc {
		if skip, ok := m.joined(st, dead); ok {
			return skip, time.Unix(key.day, 0).UTC(), nil
		}
	}
	if m.next < ps.NextDoc {
		// The documents written since the mask was read (all of them
		// when there is none).
		docs, err := tx.ExpiredDocs(ctx, ps.Name, m.next, time.Unix(key.day, 0))
		if err != nil {
			return nil, time.Time{}, err
		}
		m.expired = extendSet(m.expired, docs, ps.NextDoc)
		m.next = ps.NextDoc
	}
	// A mask read after the statistics (m.next above ps.NextDoc) may hold
	// later documents: the scorer skips those anyway.
	skip := make(index.DeadSet, max(len(dead), len(m.expired)))
	copy(skip, dead)
	for w, x := range m.expired {
		skip[w] |= x
	}
	m.keep(st, dead, skip)
	c.mu.Lock()
	if c.expiries == nil || len(c.expiries) >= maxExpiryMasks {
		c.expiries = map[expiryKey]expiryMask{}
	}
	if old, ok := c.expiries[key]; !ok || old.next <= m.next {
		c.expiries[key] = m
	}
	c.mu.Unlock()
	return skip, time.Unix(key.day, 0).UTC(), nil
}

// extendSet returns a copy of set with docs below next added: searches
// in flight read set as it is.
func extendSet(set index.DeadSet, docs []int64, next int64) index.DeadSet {
	out := make(index.DeadSet, len(set), max(int64(len(set)), (next+63)/64))
	copy(out, set)
	for _, d := range docs {
		if d < next { // written after the statistics were read
			out.Add(d)
		}
	}
	return out
}

// readExpiries reads, on another goroutine, the mask of a partition's
// documents expired before day, unless it is being read; c.mu is held.
func (c *postingsCache) readExpiries(store cairn.Store, part string, day time.Time) {
	key := expiryKey{part, day.Unix()}
	if c.expiryReads[key] {
		return
	}
	if c.expiryReads == nil {
		c.expiryReads = map[expiryKey]bool{}
	}
	c.expiryReads[key] = true
	c.expiryWG.Add(1)
	go func() {
		defer c.expiryWG.Done()
		var m expiryMask
		ctx := context.Background()
		err := store.View(ctx, func(tx cairn.Tx) error {
			ps, err := tx.PartitionCounts(ctx, part)
			if err != nil {
				return err
			}
			docs, err := tx.ExpiredDocs(ctx, part, 0, day)
			if err != nil {
				return err
			}
			m = expiryMask{next: ps.NextDoc, expired: extendSet(nil, docs, ps.NextDoc)}
			return nil
		})
		c.mu.Lock()
		defer c.mu.Unlock()
		delete(c.expiryReads, key)
		if err != nil { // a later search tries again
			return
		}
		if c.expiries == nil || len(c.expiries) >= maxExpiryMasks {
			c.expiries = map[expiryKey]expiryMask{}
		}
		if _, ok := c.expiries[key]; !ok {
			c.expiries[key] = m
		}
	}()
}

// earlierExpiries returns the kept mask of the partition for the latest
// day before day, if any: the documents it holds had expired before day
// too. c.mu is held.
func (c *postingsCache) earlierExpiries(part string, day time.Time) (expiryKey, expiryMask, bool) {
	var best expiryKey
	found := false
	for k := range c.expiries {
		if k.part == part && k.day < day.Unix() && (!found || k.day > best.day) {
			best, found = k, true
		}
	}
	if !found {
		return expiryKey{}, expiryMask{}, false
	}
	return best, c.expiries[best], true
}

// sameSet reports whether a and b are the same set in memory: the dead
// sets an engine keeps are made anew whenever they change.
func sameSet(a, b index.DeadSet) bool {
	return len(a) == len(b) && (len(a) == 0 || &a[0] == &b[0])
}

// liveTop returns the k best-scoring documents of ps whose memory has
// not expired at q.Now (those without a memory included: the candidates'
// loading leaves them out), best first, and whether more may match (as
// index.Scorer.TopMore). The scorer skips the documents masked as
// expired (skipExpired); those expired since are found by their rows,
// read into memo as the candidates' loading would, and the scorer asked
// for more until k others are found or none is left. The answer is the
// same whatever the mask skips. Without a mask, it asks for half as many
// more at first: a fifth of a large database's memories may have
// expired, and a second walk costs more than a longer first one.
func (e *Engine) liveTop(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, ps partScore, k int) ([]index.Scored, bool, error) {
	n := k
	if !ps.masked {
		n += k / 2
	}
	for {
		top, more := ps.scorer.TopMore(n)
		docs := make([]int64, len(top))
		for i, s := range top {
			docs[i] = s.Doc
		}
		ms, err := memo.find(ctx, tx, ps.name, docs)
		if err != nil {
			return nil, false, err
		}
		var expired map[int64]bool
		for _, m := range ms {
			if !m.ExpiresAt.IsZero() && !q.Now.Before(m.ExpiresAt) {
				if expired == nil {
					expired = map[int64]bool{}
				}
				expired[m.DocNum] = true
			}
		}
		live := top
		if expired != nil {
			live = slices.DeleteFunc(top, func(s index.Scored) bool { return expired[s.Doc] })
		}
		if len(live) > k {
			return live[:k], true, nil
		}
		if len(live) == k || !more {
			return live, more, nil
		}
		// Ask for more by the share of expired ones, with a margin of
		// twice those missing, so that one more walk mostly suffices.
		next := n * candidateGrowth
		if len(live) > 0 {
			next = (n*k+len(live)-1)/len(live) + k - len(live)
		}
		n = max(next, n+2*(k-len(live)))
	}
}
