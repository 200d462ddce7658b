package engine

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// RecordUse records that the memories with the given ids were injected into
// an agent's context in session: for each, one more use, last used now, and
// seed 000's usage boost (confidence + cairn.UsageBoost, at most
// cairn.MaxConfidence; a confidence already above it is kept), and a "used"
// activity entry. A memory already used in the same (non-empty) session
// gets the entry but neither the use nor the boost again: its use count
// and confidence rise once per session in which it was shown, however
// often it is shown there. It is one transaction and a targeted update: no memory
// is rewritten and the search index is not touched. Repeated ids count
// once; ids of memories that no longer exist (deleted since they were
// selected) are skipped. An entry belongs to its memory's project (for a
// global-scope memory, the project it was learned in). EINVALID for an
// empty or malformed id.
func (e *Engine) RecordUse(ctx context.Context, ids []string, session string) error {
	return e.RecordUses(ctx, []Use{{IDs: ids, Session: session, At: e.Now()}})
}

// Use is one context's use of memories, for RecordUses.
type Use struct {
	IDs     []string
	Session string
	At      time.Time // zero: the engine's clock
}

// RecordUses records several uses, as RecordUse each, in one transaction
// (a long-lived process batches the uses of many contexts this way: one
// commit instead of one per context).
func (e *Engine) RecordUses(ctx context.Context, uses []Use) error {
	_, err := e.recordUses(ctx, uses, false)
	return err
}

// QueueUses records several uses as RecordUses does, except that on a
// store that keeps a use queue (cairn.Tx.SupportsUseQueue) their use
// counts, last uses and confidence boosts are queued and applied by the
// next FoldUses: the activity entries are written, and what each session
// was shown counts, at once. It returns how many uses it queued (0 on a
// store without a queue, where they are applied at once).
func (e *Engine) QueueUses(ctx context.Context, uses []Use) (int, error) {
	return e.recordUses(ctx, uses, true)
}

// FoldUses applies the queued uses (cairn.Tx.FoldUses) in one
// transaction and returns how many there were; 0 on a store without a
// use queue.
func (e *Engine) FoldUses(ctx context.Context) (int, error) {
	n, _, err := e.foldQueue(ctx, func(tx cairn.Tx) (int, bool, error) {
		n, err := tx.FoldUses(ctx, cairn.UsageBoost, cairn.MaxConfidence)
		return n, false, err
	})
	return n, err
}

// FoldOldestUses applies the limit (≥ 1) uses queued first
// (cairn.Tx.FoldOldestUses) in one transaction, and returns how many it
// applied and whether more may be queued; 0 and false on a store without
// a use queue. Folding a long queue this way, a transaction of a bounded
// size at a time, leaves the store's writer free for other writes
// between them.
func (e *Engine) FoldOldestUses(ctx context.Context, limit int) (int, bool, error) {
	return e.foldQueue(ctx, func(tx cairn.Tx) (int, bool, error) {
		return tx.FoldOldestUses(ctx, cairn.UsageBoost, cairn.MaxConfidence, limit)
	})
}

// foldQueue runs fold in a write transaction on a store that keeps a use
// queue; 0 and false on one that does not.
func (e *Engine) foldQueue(ctx context.Context, fold func(cairn.Tx) (int, bool, error)) (int, bool, error) {
	n, more := 0, false
	err := e.store.Update(ctx, func(tx cairn.Tx) error {
		if !tx.SupportsUseQueue() {
			return nil
		}
		var err error
		n, more, err = fold(tx)
		return err
	})
	return n, more, err
}

// recordUses is RecordUses (queue false) and QueueUses.
func (e *Engine) recordUses(ctx context.Context, uses []Use, queue bool) (int, error) {
	for i := range uses {
		u := &uses[i]
		u.IDs = uniqueIDs(u.IDs)
		for _, id := range u.IDs {
			if id == "" || !utf8.ValidString(id) || len(id) > cairn.MaxNameBytes {
				return 0, cairn.Errorf(cairn.EINVALID, "memory id %q is not valid", id)
			}
		}
		if err := checkLine("session", u.Session, cairn.MaxNameBytes); err != nil {
			return 0, err
		}
		if e.redact != nil {
			u.Session = e.redact(u.Session)
		}
		if u.At.IsZero() {
			u.At = e.Now()
		}
		u.At = u.At.UTC().Truncate(time.Millisecond)
	}
	queued := 0
	err := e.store.Update(ctx, func(tx cairn.Tx) error {
		queued = 0
		// Which ids count as a use: in a session, those it was not shown
		// yet, before this batch or by an earlier use of it.
		fresh := make([][]string, len(uses))
		var again []string
		inBatch := map[string]map[string]bool{}      // session → ids of its earlier uses
		shownTo := map[string]map[string]time.Time{} // session → what it was shown before the batch
		for i, u := range uses {
			if u.Session == "" {
				fresh[i] = u.IDs
				continue
			}
			if len(u.IDs) == 0 {
				continue
			}
			shown, ok := shownTo[u.Session]
			if !ok {
				// Read once a session: the batch writes nothing before its end.
				var err error
				if shown, err = e.shownInTx(ctx, tx, u.Session); err != nil {
					return err
				}
				shownTo[u.Session] = shown
			}
			earlier := inBatch[u.Session]
			if earlier == nil {
				earlier = map[string]bool{}
				inBatch[u.Session] = earlier
			}
			for _, id := range u.IDs {
				if _, ok := shown[id]; ok || earlier[id] {
					again = append(again, id)
				} else {
					fresh[i] = append(fresh[i], id)
				}
			}
			for _, id := range u.IDs {
				earlier[id] = true
			}
		}
		projects, n, err := touchUses(ctx, tx, uses, fresh, queue)
		if err != nil {
			return err
		}
		queued = n
		var seen []string
		for _, id := range again {
			if _, ok := projects[id]; !ok && !slices.Contains(seen, id) {
				seen = append(seen, id)
			}
		}
		if len(seen) > 0 {
			ms, err := findByIDs(ctx, tx, seen)
			if err != nil {
				return err
			}
			for _, m := range ms {
				projects[m.ID] = m.Project
			}
		}
		var acts []cairn.Activity
		for _, u := range uses {
			for _, id := range u.IDs {
				if p, ok := projects[id]; ok {
					acts = append(acts, cairn.Activity{At: u.At, Project: p, MemoryID: id, Action: cairn.ActionUsed, SessionID: u.Session})
				}
			}
		}
		if len(acts) == 0 {
			return nil
		}
		return tx.AppendActivity(ctx, acts)
	})
	if err != nil {
		return 0, err
	}
	return queued, nil
}

// touchUses records the use of fresh[i] at uses[i].At, for every i, and
// returns the project of each memory touched, by id, and how many uses
// it queued: with queue true on a store that keeps a use queue, in the
// queue (QueueUses); else in one call when the store records many uses
// at once, each at its own time (TouchEach).
func touchUses(ctx context.Context, tx cairn.Tx, uses []Use, fresh [][]string, queue bool) (map[string]string, int, error) {
	queue = queue && tx.SupportsUseQueue()
	if queue || tx.SupportsTouchEach() {
		var ids []string
		var at []time.Time
		for i, f := range fresh {
			for _, id := range f {
				ids = append(ids, id)
				at = append(at, uses[i].At)
			}
		}
		if !queue {
			ps, err := tx.TouchEach(ctx, ids, at, cairn.UsageBoost, cairn.MaxConfidence)
			return ps, 0, err
		}
		ps, err := tx.QueueUses(ctx, ids, at)
		if err != nil {
			return nil, 0, err
		}
		n := 0
		for _, id := range ids {
			if _, ok := ps[id]; ok {
				n++
			}
		}
		return ps, n, nil
	}
	projects := map[string]string{}
	for i, f := range fresh {
		if len(f) == 0 {
			continue
		}
		ps, err := tx.TouchMemories(ctx, f, uses[i].At, cairn.UsageBoost, cairn.MaxConfidence)
		if err != nil {
			return nil, 0, err
		}
		maps.Copy(projects, ps)
	}
	return projects, 0, nil
}

func uniqueIDs(ids []string) []string {
	out := make([]string, 0, len(ids))
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// FindActivity returns a project's activity log entries that match f,
// newest first, and how many match in all. EINVALID for a bad project or
// an unknown action.
func (e *Engine) FindActivity(ctx context.Context, f cairn.ActivityFilter) ([]cairn.Activity, int, error) {
	if !cairn.ValidProject(f.Project) {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "project %q is not valid", f.Project)
	}
	for _, a := range f.Actions {
		if !slices.Contains(cairn.Actions(), a) {
			return nil, 0, cairn.Errorf(cairn.EINVALID, "action %q is not one of %s", a, strings.Join(cairn.Actions(), ", "))
		}
	}
	if f.Limit < 0 {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "limit %d is negative", f.Limit)
	}
	var out []cairn.Activity
	var total int
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		out, total, err = tx.FindActivity(ctx, f)
		return err
	})
	return out, total, err
}

// activityOf is the entry for something that happened to m.
func activityOf(m *cairn.Memory, action string, at time.Time, session, detail string) cairn.Activity {
	return cairn.Activity{At: at, Project: m.Project, MemoryID: m.ID, Action: action, SessionID: session, Detail: detail}
}

// writeActivity is the entry for a write's outcome; an unchanged write has
// none.
func writeActivity(res *cairn.WriteResult, at time.Time, session, detail string) (cairn.Activity, bool) {
	switch res.Status {
	case cairn.StatusCreated, cairn.StatusUpdated, cairn.StatusReinforced:
		// The statuses and the actions share their names.
		return activityOf(res.Memory, res.Status, at, session, detail), true
	}
	return cairn.Activity{}, false
}

// addDetail describes an AddMemory outcome for the log.
func addDetail(res *cairn.WriteResult) string {
	m := res.Memory
	switch res.Status {
	case cairn.StatusCreated:
		return m.Title
	case cairn.StatusReinforced:
		return fmt.Sprintf("same content added again; confidence %.2f", m.Confidence)
	case cairn.StatusUpdated:
		return "same type and key"
	}
	return ""
}

// updateActivities are the entries for an update of old to n: one per kind
// of change (a pin, a supersede link, a promotion, any other edit).
func (e *Engine) updateActivities(old, n *cairn.Memory, at time.Time) []cairn.Activity {
	var acts []cairn.Activity
	add := func(action, detail string) {
		acts = append(acts, activityOf(n, action, at, "", detail))
	}
	if old.Pinned != n.Pinned {
		if n.Pinned {
			add(cairn.ActionPinned, "")
		} else {
			add(cairn.ActionUnpinned, "")
		}
	}
	if old.SupersededBy != n.SupersededBy && n.SupersededBy != "" {
		add(cairn.ActionSuperseded, "by "+n.SupersededBy)
	}
	var promo []string
	if old.Type != n.Type {
		promo = append(promo, fmt.Sprintf("type %s → %s", old.Type, n.Type))
	}
	if old.Scope != n.Scope && n.Scope == cairn.ScopeGlobal {
		promo = append(promo, fmt.Sprintf("scope %s → %s", old.Scope, n.Scope))
	}
	if len(promo) > 0 {
		if !old.ExpiresAt.Equal(n.ExpiresAt) {
			if n.ExpiresAt.IsZero() {
				promo = append(promo, "no longer expires")
			} else {
				promo = append(promo, "expires "+n.ExpiresAt.Format(time.DateOnly))
			}
		}
		add(cairn.ActionPromoted, strings.Join(promo, ", "))
	}
	var rest []string
	for _, f := range changedFields(old, n) {
		switch {
		case f == "pinned", f == "type":
		case f == "superseded_by" && n.SupersededBy != "":
		case f == "scope" && n.Scope == cairn.ScopeGlobal:
		case f == "expires_at" && len(promo) > 0:
		default:
			rest = append(rest, f)
		}
	}
	if len(rest) > 0 {
		add(cairn.ActionUpdated, strings.Join(rest, ", "))
	}
	return acts
}

// changedFields names the user-visible fields in which a and b differ.
func changedFields(a, b *cairn.Memory) []string {
	var out []string
	for _, f := range []struct {
		name string
		diff bool
	}{
		{"type", a.Type != b.Type},
		{"key", a.Key != b.Key},
		{"title", a.Title != b.Title},
		{"content", a.Content != b.Content},
		{"tags", !slices.Equal(a.Tags, b.Tags)},
		{"file_refs", !slices.Equal(a.FileRefs, b.FileRefs)},
		{"confidence", a.Confidence != b.Confidence},
		{"scope", a.Scope != b.Scope},
		{"pinned", a.Pinned != b.Pinned},
		{"superseded_by", a.SupersededBy != b.SupersededBy},
		{"expires_at", !a.ExpiresAt.Equal(b.ExpiresAt)},
		{"verified_at", !a.VerifiedAt.Equal(b.VerifiedAt)},
		{"provenance", a.Agent != b.Agent || a.Hat != b.Hat || a.TaskID != b.TaskID || a.SessionID != b.SessionID},
	} {
		if f.diff {
			out = append(out, f.name)
		}
	}
	return out
}

// findByIDs returns the stored memories of ids; missing ones are skipped.
func findByIDs(ctx context.Context, tx cairn.Tx, ids []string) ([]*cairn.Memory, error) {
	var out []*cairn.Memory
	for _, id := range ids {
		m, err := tx.FindMemoryByID(ctx, id)
		if cairn.ErrorCode(err) == cairn.ENOTFOUND {
			continue
		}
		if err != nil {
			return nil, err
		}
		out = append(out, m)
	}
	return out, nil
}
