package engine

import (
	"cmp"
	"context"
	"maps"
	"slices"
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
	mu  sync.Mutex
	ids map[string]time.Time
	// lent: ids was handed out by sessionShownIn, whose callers read it
	// after s.mu is released; the next change copies it first.
	lent   bool
	lastID int64
	// version is the store's data version read before the latest read
	// of the log (versionOK: one was read, and that read succeeded):
	// while it stays the same, no entry can have been committed since
	// (cachedShown).
	version   int64
	versionOK bool
	// projects are the session's entries by the project they name
	// (Activity.Project), for what NewFromOtherSessions and ShownCounts
	// would otherwise read from the log on every call.
	projects map[string]*projectShown
}

// projectShown is a session's "used" entries of one project.
type projectShown struct {
	last time.Time // the latest entry's time
	// recent holds the latest maxShownCount entries (by time, then id,
	// as the log orders them), among at most 2*maxShownCount: an entry
	// past the latest maxShownCount never comes back among them, since
	// entries are only added.
	recent []shownEntry
}

type shownEntry struct {
	id     int64
	at     time.Time
	memory string
}

// newestFirst orders entries as the log's reads do: by time, then id,
// the newest first.
func newestFirst(a, b shownEntry) int {
	if c := b.at.Compare(a.at); c != 0 {
		return c
	}
	return cmp.Compare(b.id, a.id)
}

// note keeps entry a of project.
func (s *sessionShown) note(a cairn.Activity) {
	if s.projects == nil {
		s.projects = map[string]*projectShown{}
	}
	p := s.projects[a.Project]
	if p == nil {
		p = &projectShown{}
		s.projects[a.Project] = p
	}
	if a.At.After(p.last) {
		p.last = a.At
	}
	p.recent = append(p.recent, shownEntry{a.ID, a.At, a.MemoryID})
	if len(p.recent) > 2*maxShownCount {
		slices.SortFunc(p.recent, newestFirst)
		p.recent = slices.Clip(p.recent[:maxShownCount])
	}
}

// counts returns how many times each memory was shown in project among
// the latest maxShownCount entries. s.mu is held.
func (s *sessionShown) counts(project string) map[string]int {
	p := s.projects[project]
	if p == nil {
		return map[string]int{}
	}
	recent := p.recent
	if len(recent) > maxShownCount {
		recent = slices.Clone(recent)
		slices.SortFunc(recent, newestFirst)
		recent = recent[:maxShownCount]
	}
	n := make(map[string]int, len(recent))
	for _, e := range recent {
		n[e.memory]++
	}
	return n
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
			if s.lent {
				s.ids, s.lent = maps.Clone(s.ids), false
			}
			s.ids[a.MemoryID] = a.At
		}
		s.note(a)
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
// written yet (NoteShown). The map may be the one the cache keeps, which
// is copied before it next changes: callers only read it. A session's
// map grows with every memory it was shown (hundreds in a long session),
// and a copy on every call cost more than the reads of it.
func (e *Engine) sessionShownIn(ctx context.Context, session string) (map[string]time.Time, error) {
	// The noted uses are read first: one taken back after this read was
	// written before it, and the log's read below finds it.
	pending := e.pendingOf(session)
	var shown map[string]time.Time
	cached, err := e.cachedShown(ctx, session, nil, func(_ cairn.Tx, s *sessionShown) error {
		shown, s.lent = s.ids, true
		return nil
	})
	if err == nil && !cached {
		err = e.store.View(ctx, func(tx cairn.Tx) error {
			var err error
			shown, err = shownIn(ctx, tx, session)
			return err
		})
	}
	if err != nil {
		return nil, err
	}
	own := !cached // shownIn's map is this call's
	for id, pu := range pending {
		if pu.at.After(shown[id]) {
			if !own {
				shown, own = maps.Clone(shown), true
			}
			shown[id] = pu.at
		}
	}
	return shown, nil
}

// cachedShown calls f with session's entry brought up to date with the
// log (the entries committed since the last read), while no other call
// changes it. It reports false, and does not call f, without a cache.
// The log is read in a read transaction, which f is given, unless the
// store's data version is the one read before the entry's latest read
// of the log: nothing was committed since, so the entry is up to date
// as it is, and f is called without a transaction (tx nil) unless
// needTx says it reads the store (then within one, as before). A hook's
// call asks several times (what the session was shown, what is new from
// other sessions): the log is read once.
func (e *Engine) cachedShown(ctx context.Context, session string, needTx func(s *sessionShown) bool, f func(tx cairn.Tx, s *sessionShown) error) (bool, error) {
	if e.cache == nil {
		return false, nil
	}
	s := e.cache.shownOf(session)
	s.mu.Lock()
	defer s.mu.Unlock()
	// Before the transaction: a commit after this reading is then either
	// in what the transaction reads or changes the version.
	v, vok := e.dataVersion(ctx)
	current := vok && s.versionOK && v == s.version
	if current && (needTx == nil || !needTx(s)) {
		return true, f(nil, s)
	}
	return true, e.store.View(ctx, func(tx cairn.Tx) error {
		if !current {
			s.versionOK = false // until the read succeeds
			if err := s.add(ctx, tx, session); err != nil {
				return err
			}
			s.version, s.versionOK = v, vok
		}
		return f(tx, s)
	})
}

// shownInTx is sessionShownIn within tx (a write transaction recording
// uses): from the cache when there is one. The map may be the one the
// cache keeps, lent as sessionShownIn lends it: callers only read it.
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
	s.lent = true
	return s.ids, nil
}

// shownIn returns the memories used (shown in a context) in session, with
// when each was last shown.
func shownIn(ctx context.Context, tx cairn.Tx, session string) (map[string]time.Time, error) {
	s := &sessionShown{ids: map[string]time.Time{}}
	return s.ids, s.add(ctx, tx, session)
}
