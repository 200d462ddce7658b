package engine

import (
	"context"
	"time"

	"github.com/cairn-dev/cairn"
)

// parallelScan is how many of the newest memories NewFromOtherSessions
// looks at: a burst of writes (an import, a session summary) beyond it
// is not "new from parallel work".
const parallelScan = 50

// NewFromOtherSessions returns what parallel agents learned while session
// worked: the memories of project created by other agent sessions after
// session's previous context (its latest "used" activity entry in
// project), newest first, at most limit. Memories written without a
// session (imports, `cairn add` by hand), superseded and expired ones are
// left out. A session that has had no context in project yet gets none:
// everything is new to it, and the usual tiers choose. It reads only.
func (e *Engine) NewFromOtherSessions(ctx context.Context, project, session string, limit int) ([]*cairn.Memory, error) {
	if session == "" || limit <= 0 {
		return nil, nil
	}
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	if e.redact != nil {
		session = e.redact(session) // as RecordUses stored it
	}
	now := e.Now()
	var out []*cairn.Memory
	since := func(tx cairn.Tx, last time.Time) error {
		ms, _, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: project, After: last.Add(time.Millisecond),
			Sort: cairn.SortCreatedDesc, Limit: parallelScan, SkipTotal: true})
		if err != nil {
			return err
		}
		for _, m := range ms {
			if m.SessionID == "" || m.SessionID == session || m.SupersededBy != "" ||
				(!m.ExpiresAt.IsZero() && !m.ExpiresAt.After(now)) {
				continue
			}
			if out = append(out, m); len(out) == limit {
				break
			}
		}
		return nil
	}
	// The session's previous context: a long-lived process keeps the
	// session's entries, brought up to date in the same transaction as
	// the memories are read; others read the latest.
	shownBefore := func(s *sessionShown) bool {
		p := s.projects[project]
		return p != nil && !p.last.IsZero()
	}
	cached, err := e.cachedShown(ctx, session, shownBefore, func(tx cairn.Tx, s *sessionShown) error {
		if !shownBefore(s) {
			return nil
		}
		return since(tx, s.projects[project].last)
	})
	if cached {
		return out, err
	}
	err = e.store.View(ctx, func(tx cairn.Tx) error {
		acts, _, err := tx.FindActivity(ctx, cairn.ActivityFilter{Project: project, SessionID: session,
			Actions: []string{cairn.ActionUsed}, Limit: 1, SkipTotal: true}) // no count of the session's whole history
		if err != nil || len(acts) == 0 {
			return err
		}
		return since(tx, acts[0].At)
	})
	return out, err
}
