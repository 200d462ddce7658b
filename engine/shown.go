package engine

import (
	"context"
	"maps"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// What each session was already shown: a block does not repeat an
// unchanged memory in one session, and a memory's use counts once per
// session (RecordUses). Read from the activity log's "used" entries; a
// long-lived process keeps them (postingsCache.shown), reading only the
// entries committed since.

// sessionShown is what a session was shown, read from the activity log up
// to the entry lastID: later reads fetch only the entries committed since
// (activity ids grow in commit order), however long the session is.
type sessionShown struct {
	mu     sync.Mutex
	ids    map[string]time.Time
	lastID int64
}

// add reads the session's uses committed after s.lastID. s.mu is held.
func (s *sessionShown) add(ctx context.Context, tx cairn.Tx, session string) error {
	acts, _, err := tx.FindActivity(ctx, cairn.ActivityFilter{SessionID: session, Actions: []string{cairn.ActionUsed},
		AfterID: s.lastID, SkipTotal: true})
	if err != nil {
		return err
	}
	for _, a := range acts {
		if a.At.After(s.ids[a.MemoryID]) {
			s.ids[a.MemoryID] = a.At
		}
		s.lastID = max(s.lastID, a.ID)
	}
	return nil
}

// maxShownSessions bounds the sessions whose shown memories are kept.
const maxShownSessions = 256

// shownOf returns the session's entry, creating it when missing.
func (c *postingsCache) shownOf(session string) *sessionShown {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.shown == nil || len(c.shown) >= maxShownSessions && c.shown[session] == nil {
		c.shown = map[string]*sessionShown{}
	}
	s := c.shown[session]
	if s == nil {
		s = &sessionShown{ids: map[string]time.Time{}}
		c.shown[session] = s
	}
	return s
}

// sessionShownIn returns the memories already put into session: those of
// the log, from the cache when there is one (reading only the entries
// committed since the last read), and those of the uses noted and not
// written yet (NoteShown).
func (e *Engine) sessionShownIn(ctx context.Context, session string) (map[string]time.Time, error) {
	// The noted uses are read first: one taken back after this read was
	// written before it, and the log's read below finds it.
	pending := e.pendingOf(session)
	withPending := func(shown map[string]time.Time) map[string]time.Time {
		for id, pu := range pending {
			if pu.at.After(shown[id]) {
				shown[id] = pu.at
			}
		}
		return shown
	}
	if e.cache == nil {
		var shown map[string]time.Time
		err := e.store.View(ctx, func(tx cairn.Tx) error {
			var err error
			shown, err = shownIn(ctx, tx, session)
			return err
		})
		if err != nil {
			return nil, err
		}
		return withPending(shown), nil
	}
	s := e.cache.shownOf(session)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := e.store.View(ctx, func(tx cairn.Tx) error { return s.add(ctx, tx, session) }); err != nil {
		return nil, err
	}
	return withPending(maps.Clone(s.ids)), nil
}

// shownInTx is sessionShownIn within tx (a write transaction recording
// uses): from the cache when there is one.
func (e *Engine) shownInTx(ctx context.Context, tx cairn.Tx, session string) (map[string]time.Time, error) {
	if e.cache == nil {
		return shownIn(ctx, tx, session)
	}
	s := e.cache.shownOf(session)
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.add(ctx, tx, session); err != nil {
		return nil, err
	}
	return maps.Clone(s.ids), nil
}

// shownIn returns the memories used (shown in a context) in session, with
// when each was last shown.
func shownIn(ctx context.Context, tx cairn.Tx, session string) (map[string]time.Time, error) {
	s := &sessionShown{ids: map[string]time.Time{}}
	return s.ids, s.add(ctx, tx, session)
}
