package engine

import (
	"context"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// What a session was shown by uses queued but not written yet. A
// long-running process writes uses in batches (jobs.UseWriter), up to
// half a second after the block that showed the memories; the hook calls
// of one session come closer than that (a prompt, then the tool call
// after it; parallel tool calls), and each must know at once what the
// others showed. The writer notes each use here when it queues it
// (NoteShown) and takes it back once written (UnnoteShown); what a
// session was shown (ContextCandidates' Shown, ShownCounts) is the log's
// and this, so a memory is not shown twice, while the log alone decides
// whether a use counts (RecordUses).

// pendingShown holds the uses noted and not yet taken back, by session
// and memory id. Safe for concurrent use; shared by the engines derived
// from one.
type pendingShown struct {
	mu       sync.Mutex
	sessions map[string]map[string]pendingUse
}

// pendingUse is a memory's noted uses in one session: how many, and the
// time of the last.
type pendingUse struct {
	at time.Time
	n  int
}

// NoteShown notes that u's memories were shown in its session, before
// the use is written: until UnnoteShown takes it back, the blocks and
// lookups of the session count it as shown. A use without a session is
// not noted. Safe for concurrent use.
func (e *Engine) NoteShown(u Use) {
	if u.Session == "" || len(u.IDs) == 0 {
		return
	}
	at := u.At
	if at.IsZero() {
		at = e.Now()
	}
	p := e.pending
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sessions == nil {
		p.sessions = map[string]map[string]pendingUse{}
	}
	ids := p.sessions[u.Session]
	if ids == nil {
		ids = map[string]pendingUse{}
		p.sessions[u.Session] = ids
	}
	for _, id := range uniqueIDs(u.IDs) {
		pu := ids[id]
		pu.n++
		if at.After(pu.at) {
			pu.at = at
		}
		ids[id] = pu
	}
}

// UnnoteShown takes back the uses NoteShown noted, once they are written
// (or their write failed): call it after the write commits, so that a
// reader finds them in the log or here.
func (e *Engine) UnnoteShown(uses []Use) {
	p := e.pending
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, u := range uses {
		ids := p.sessions[u.Session]
		if ids == nil {
			continue
		}
		for _, id := range uniqueIDs(u.IDs) {
			if pu, ok := ids[id]; ok {
				if pu.n--; pu.n <= 0 {
					delete(ids, id)
				} else {
					ids[id] = pu
				}
			}
		}
		if len(ids) == 0 {
			delete(p.sessions, u.Session)
		}
	}
}

// pendingOf returns a copy of session's noted uses; nil when none.
func (e *Engine) pendingOf(session string) map[string]pendingUse {
	p := e.pending
	p.mu.Lock()
	defer p.mu.Unlock()
	ids := p.sessions[session]
	if len(ids) == 0 {
		return nil
	}
	out := make(map[string]pendingUse, len(ids))
	for id, pu := range ids {
		out[id] = pu
	}
	return out
}

// maxShownCount bounds the log entries ShownCounts reads.
const maxShownCount = 500

// ShownCounts returns how many times each memory was shown in session,
// of project: the uses written to the activity log (its last
// maxShownCount) and those noted and not yet written (NoteShown).
// EINVALID without a session.
func (e *Engine) ShownCounts(ctx context.Context, project, session string) (map[string]int, error) {
	if session == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "give the session whose uses to count")
	}
	pending := e.pendingOf(session) // before the log: see UnnoteShown
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	var n map[string]int
	// A long-lived process keeps the session's entries (cachedShown)
	// rather than reading up to maxShownCount of them on every call.
	cached, err := e.cachedShown(ctx, session, nil, func(_ cairn.Tx, s *sessionShown) error {
		n = s.counts(project)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if !cached {
		acts, _, err := e.FindActivity(ctx, cairn.ActivityFilter{Project: project, SessionID: session,
			Actions: []string{cairn.ActionUsed}, Limit: maxShownCount, SkipTotal: true})
		if err != nil {
			return nil, err
		}
		n = make(map[string]int, len(acts)+len(pending))
		for _, a := range acts {
			n[a.MemoryID]++
		}
	}
	for id, pu := range pending {
		n[id] += pu.n
	}
	return n, nil
}
