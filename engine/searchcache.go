package engine

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// A long-lived process (an engine with a cache, `cairn serve`) keeps what
// recent searches read from the store: their hits before ranking. A
// search asked again is then ranked again at its own clock reading, and
// answers exactly as a search that reads the store would, because an
// entry is used only
//
//   - while the memory rows and the index are unchanged (the rows
//     version, Engine.rowsVersion: every commit of another process
//     changes it, and every commit of this one but those that only queue
//     uses and append activity entries, what the server writes after
//     each context it answers; a search reads neither), and
//   - for clock readings at which every memory the search read passes or
//     fails its filters as it did (expiryWindow): expiry is the one filter
//     that depends on the clock. A search that skipped the memories
//     expired before a day unread (skipExpired) holds from that day on,
//     where they are all expired still.
//
// Ranking (salience, recency, the periods a query names) is computed for
// every search. Stores that report neither a rows nor a data version are
// not cached.

// retrievalCap bounds the searches kept, and retrievalShare the bytes of
// memories they hold, as a share of the postings cache's size (64 MiB: 8
// MiB, about 150 searches of 10 hits at 1,000,000 memories); the cache
// starts over when either is reached, and whenever the rows version
// changes. What it holds counts in the server's memory limit
// (Engine.ResidentBytes): at a quarter (16 MiB) a server that answers
// fresh queries, which no kept search serves, held 8 MiB more on the heap
// for nothing (docs/performance.md).
const (
	retrievalCap   = 512
	retrievalShare = 8
)

type retrievalCache struct {
	mu      sync.Mutex
	version int64
	entries map[string]*retrieved
	size    int64 // about how many bytes the entries hold
}

// size is about how many bytes r's hits hold.
func (r *retrieved) size() int64 {
	n := int64(256)
	for _, h := range r.kept {
		m := h.Memory
		n += int64(len(m.Content) + len(m.Title) + len(m.Key) + 64*len(m.Tags) + 64*len(m.FileRefs) + 512)
	}
	return 2 * n // and the index terms of those shown, analysed once
}

// expiryWindow is the clock readings [from, until) at which the memories
// a search read pass or fail its expiry filter as they did: from is the
// latest expiry at or before the search's clock (zero: none), until the
// earliest after it (zero: none).
type expiryWindow struct{ from, until time.Time }

func openWindow() expiryWindow { return expiryWindow{} }

func (w expiryWindow) holds(now time.Time) bool {
	return (w.from.IsZero() || !now.Before(w.from)) && (w.until.IsZero() || now.Before(w.until))
}

// window is the expiry window at now of every memory dm read.
func (dm docMemo) window(now time.Time) expiryWindow {
	var w expiryWindow
	for _, ms := range dm {
		for _, m := range ms {
			if m == nil || m.ExpiresAt.IsZero() {
				continue
			}
			if !now.Before(m.ExpiresAt) { // expired at now
				if m.ExpiresAt.After(w.from) {
					w.from = m.ExpiresAt
				}
			} else if w.until.IsZero() || m.ExpiresAt.Before(w.until) {
				w.until = m.ExpiresAt
			}
		}
	}
	return w
}

// retrievalKey is what a lexical search's hits before ranking depend on
// besides the data: its normalised query without the clock.
func retrievalKey(q cairn.Query, exhaustive bool) string {
	return fmt.Sprintf("%q|%q|%d|%q|%q|%d|%d|%q|%t|%t|%t|%t|%t", q.Project, q.Text, q.Limit, q.Types, q.Tags,
		q.After.UnixNano(), q.Before.UnixNano(), q.ExcludeSession, q.NoGlobal, q.ExcludeSuperseded, q.NoFeedback, q.Prompt, exhaustive)
}

// cachedRetrieval returns the kept retrieval of q when it is still valid,
// else nil with the key and rows version to keep a new one under (key ""
// when nothing may be kept).
func (e *Engine) cachedRetrieval(ctx context.Context, q cairn.Query, exhaustive bool) (key string, version int64, r *retrieved) {
	if e.cache == nil {
		return "", 0, nil
	}
	v, ok := e.rowsVersion(ctx)
	if !ok {
		return "", 0, nil
	}
	key = retrievalKey(q, exhaustive)
	rc := &e.cache.retrievals
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.version != v {
		rc.version, rc.entries, rc.size = v, nil, 0
		return key, v, nil
	}
	if r := rc.entries[key]; r != nil && r.window.holds(q.Now) {
		return key, v, r
	}
	return key, v, nil
}

// keepRetrieval keeps r, read at the rows version version, under key.
func (e *Engine) keepRetrieval(key string, version int64, r *retrieved) {
	if key == "" || r == nil {
		return
	}
	rc := &e.cache.retrievals
	rc.mu.Lock()
	defer rc.mu.Unlock()
	if rc.version != version {
		return // the database changed since: r may be stale already
	}
	n := r.size()
	limit := e.cache.max / retrievalShare
	if n > limit/8 {
		return // one search must not push out all the others
	}
	if rc.entries == nil || len(rc.entries) >= retrievalCap || rc.size+n > limit {
		rc.entries, rc.size = map[string]*retrieved{}, 0
	}
	if old := rc.entries[key]; old != nil {
		rc.size -= old.size()
	}
	rc.entries[key] = r
	rc.size += n
}
