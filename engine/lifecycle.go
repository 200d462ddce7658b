package engine

import (
	"context"
	"fmt"
	"math"
	"sort"
	"time"

	"github.com/cairn-dev/cairn"
)

// Maintain applies seed 000's and seed 004's lifecycle rules to a project's
// memories (whatever their scope) at the engine's clock:
//
//   - decay: a memory not used (last used, else created) for at least a
//     week loses cairn.DecayPerWeek of confidence per whole week since its
//     last use or its last decay, whichever is later, down to
//     cairn.MinConfidence. The decay clock is stored, so running Maintain
//     twice in one week decays once.
//   - expiry: a memory whose expiry (its type's time to live, e.g. 30 days
//     for sessions, 90 for learnings and gotchas) has passed is removed;
//     the time to live is that of the engine's policies, also for
//     memories stored before it was configured (an expiry set by hand
//     stays as it is).
//   - low value: a memory whose confidence (after this run's decay) is
//     below cairn.LowValueConfidence, that was never used, is older than
//     cairn.LowValueAge and was not stored explicitly is removed.
//
// Pinned memories never decay and are never removed. With apply false
// nothing changes and the report says what would happen; with apply true
// removed memories leave the search index, and each change is written to
// the activity log (decayed, expired, deleted).
//
// The project is read and changed a page of maintainBatch memories at a
// time (oldest first), each page in its own transaction that decides and
// applies its changes, so that a large project never keeps the store's
// other requests waiting for the whole run: between two pages they read
// and write as usual. A memory is judged on the state its page reads, so
// a use, an edit or a pin that commits before its page counts, and none
// is lost. A run that fails part way keeps the pages it committed; the
// next run finds what is left. With apply true each page first applies
// the uses queued by a long-lived process (FoldUses), so that those count
// as well; a report (apply false) judges on the uses applied so far.
// EINVALID for a bad project.
func (e *Engine) Maintain(ctx context.Context, project string, apply bool) (*cairn.MaintenanceReport, error) {
	return e.maintain(ctx, project, apply, true)
}

// MaintainCounts applies the lifecycle as Maintain(ctx, project, true)
// does, and returns a report with its counts and no Items: a background
// cleanup that only logs what it did need not hold an item for every
// memory it decayed (a project of a million memories a month old decays
// most of them, and the items took over a hundred MiB until the run
// ended).
func (e *Engine) MaintainCounts(ctx context.Context, project string) (*cairn.MaintenanceReport, error) {
	return e.maintain(ctx, project, true, false)
}

// maintain is Maintain, keeping the report's items when items is true.
func (e *Engine) maintain(ctx context.Context, project string, apply, items bool) (*cairn.MaintenanceReport, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	now := e.Now()
	e, err := e.inProject(ctx, project)
	if err != nil {
		return nil, err
	}
	rep := &cairn.MaintenanceReport{Project: project, At: now, Applied: apply, Items: []cairn.MaintenanceItem{}}
	// Items are grouped by action (expired, deleted, decayed), each group
	// oldest first: the pages come oldest first.
	var expired, deleted, decayed []cairn.MaintenanceItem
	page := cairn.LifecyclePage{Limit: maintainBatch}
	if apply {
		// The pages read the same rows and index entries one
		// transaction after another.
		defer e.store.WriteRun(ctx)()
	}
	for {
		var pg maintenancePage
		step := func(tx cairn.Tx) error {
			pg = maintenancePage{}
			states, err := tx.FindLifecycleStates(ctx, project, page)
			if err != nil {
				return err
			}
			pg.plan(e, states, now)
			if !apply {
				return nil
			}
			return e.applyMaintenance(ctx, tx, project, &pg, now)
		}
		if apply {
			// The uses a long-lived process queued count before the page
			// is judged, as those it applied do: applied just before, in
			// a transaction of their own (see cairn.Tx.FoldUses).
			if _, err = e.FoldUses(ctx); err == nil {
				err = e.store.Update(ctx, step)
			}
		} else {
			err = e.store.View(ctx, step)
		}
		if err != nil {
			return nil, err
		}
		for _, name := range pg.compact {
			if err := e.compactInSteps(ctx, name); err != nil {
				return nil, err
			}
		}
		rep.Expired, rep.Deleted, rep.Decayed = rep.Expired+len(pg.expired), rep.Deleted+len(pg.deleted), rep.Decayed+len(pg.decayed)
		if items {
			expired, deleted, decayed = append(expired, pg.expired...), append(deleted, pg.deleted...), append(decayed, pg.decayed...)
		}
		rep.Pinned += pg.pinned
		if pg.read < maintainBatch {
			break
		}
		page.AfterCreated, page.AfterID = pg.last.CreatedAt, pg.last.ID
		if err := ctx.Err(); err != nil {
			return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "the cleanup of project %s was cancelled", project)
		}
	}
	rep.Items = append(append(append(rep.Items, expired...), deleted...), decayed...)
	return rep, nil
}

// maintainBatch is how many memories cleanup reads, decides on and
// changes in one transaction: a page takes milliseconds, so a request that
// arrives during a cleanup waits for one page at most, not for the run.
const maintainBatch = 500

// maintenancePage is what cleanup decides for one page of memories.
type maintenancePage struct {
	read                      int
	last                      cairn.LifecycleState
	expired, deleted, decayed []cairn.MaintenanceItem
	decays                    []cairn.Decay
	pinned                    int
	// compact names the partitions the page's removals made due for
	// compaction: the cleanup compacts them in steps after the page.
	compact []string
}

// plan decides what cleanup does to each of states at now.
func (pg *maintenancePage) plan(e *Engine, states []cairn.LifecycleState, now time.Time) {
	pg.read = len(states)
	if len(states) > 0 {
		pg.last = states[len(states)-1]
	}
	for _, s := range states {
		it, d, pinned := e.maintenanceOf(s, now)
		if pinned {
			pg.pinned++
		}
		switch it.Action {
		case cairn.ActionExpired:
			pg.expired = append(pg.expired, it)
		case cairn.ActionDeleted:
			pg.deleted = append(pg.deleted, it)
		case cairn.ActionDecayed:
			pg.decayed = append(pg.decayed, it)
			pg.decays = append(pg.decays, d)
		}
	}
}

// applyMaintenance applies a page's decisions in tx: removals (from the
// store and the search index), decays, and their activity, in the order
// of the report.
func (e *Engine) applyMaintenance(ctx context.Context, tx cairn.Tx, project string, pg *maintenancePage, now time.Time) error {
	b := e.newIndexBatch()
	b.deferCompact = true
	acts := make([]cairn.Activity, 0, len(pg.expired)+len(pg.deleted)+len(pg.decayed))
	for _, it := range append(append(pg.expired[:len(pg.expired):len(pg.expired)], pg.deleted...), pg.decayed...) {
		if it.Action == cairn.ActionDecayed {
			acts = append(acts, cairn.Activity{At: now, Project: project, MemoryID: it.MemoryID, Action: it.Action, Detail: it.Reason})
			continue
		}
		m, err := tx.FindMemoryByID(ctx, it.MemoryID)
		if err != nil {
			return err
		}
		if err := b.remove(ctx, tx, m); err != nil {
			return err
		}
		if err := tx.DeleteMemory(ctx, m.ID); err != nil {
			return err
		}
		acts = append(acts, activityOf(m, it.Action, now, "", it.Reason+" — "+m.Title))
	}
	if err := tx.DecayMemories(ctx, pg.decays); err != nil {
		return err
	}
	if err := b.flush(ctx, tx); err != nil {
		return err
	}
	pg.compact = b.compactionDue()
	return tx.AppendActivity(ctx, acts)
}

// maintenanceOf decides what cleanup does to one memory at now: its item
// (Action "" for nothing), the decay to store, and whether the memory is
// pinned and would otherwise have been changed.
func (e *Engine) maintenanceOf(s cairn.LifecycleState, now time.Time) (cairn.MaintenanceItem, cairn.Decay, bool) {
	it := cairn.MaintenanceItem{MemoryID: s.ID, Title: s.Title, Type: s.Type, Confidence: s.Confidence, NewConfidence: s.Confidence}
	conf, weeks, clock := decayOf(s, now)
	expires := e.expiryOf(s)
	expired := !expires.IsZero() && !now.Before(expires)
	age := now.Sub(s.CreatedAt)
	lowValue := conf < cairn.LowValueConfidence && s.UseCount == 0 && age > cairn.LowValueAge && s.Source != cairn.SourceExplicit
	if s.Pinned {
		return cairn.MaintenanceItem{}, cairn.Decay{}, expired || lowValue || weeks > 0
	}
	switch {
	case expired:
		it.Action, it.Reason = cairn.ActionExpired, e.expiryReason(s, expires)
	case lowValue:
		it.Action = cairn.ActionDeleted
		it.Reason = fmt.Sprintf("low value: confidence %.2f, never used, %d days old", conf, int(age/(24*time.Hour)))
		if weeks > 0 {
			it.Reason = fmt.Sprintf("low value: confidence %.2f after %s of decay, never used, %d days old", conf, plural(weeks, "week"), int(age/(24*time.Hour)))
		}
	case weeks > 0:
		it.Action, it.NewConfidence, it.Weeks = cairn.ActionDecayed, conf, weeks
		it.Reason = fmt.Sprintf("decay %.2f → %.2f (%s unused)", s.Confidence, conf, plural(weeks, "week"))
		return it, cairn.Decay{ID: s.ID, Confidence: conf, DecayedAt: clock}, false
	}
	return it, cairn.Decay{}, false
}

// decayOf returns the confidence s decays to at now, the whole weeks of
// decay that takes (0: none), and the new decay clock. The weeks are
// counted from the later of the last use (else the creation) and the
// last decay, and only once the memory has gone unused for a week; the
// clock advances by whole weeks so that partial weeks carry over.
func decayOf(s cairn.LifecycleState, now time.Time) (float64, int, time.Time) {
	lastUse := s.LastUsedAt
	if lastUse.IsZero() {
		lastUse = s.CreatedAt
	}
	if now.Sub(lastUse) < cairn.DecayAfter || s.Confidence <= cairn.MinConfidence {
		return s.Confidence, 0, s.DecayedAt
	}
	from := lastUse
	if s.DecayedAt.After(from) {
		from = s.DecayedAt
	}
	weeks := int(now.Sub(from) / cairn.DecayAfter)
	if weeks == 0 {
		return s.Confidence, 0, s.DecayedAt
	}
	c := math.Max(cairn.MinConfidence, s.Confidence-cairn.DecayPerWeek*float64(weeks))
	// Rounded to millionths so that repeated steps of 0.02 give the
	// decimals people expect (0.46, not 0.45999999999999996).
	c = math.Round(c*1e6) / 1e6
	return c, weeks, from.Add(time.Duration(weeks) * cairn.DecayAfter)
}

// expiryOf is when cleanup takes s to expire. An expiry that came from a
// type's time to live (the built-in one, or none) follows the engine's
// policies, so that a time to live configured later applies to memories
// stored before; an expiry set by hand stays.
func (e *Engine) expiryOf(s cairn.LifecycleState) time.Time {
	builtin := cairn.DefaultTypes().Of(s.Type).TTL
	fromPolicy := s.ExpiresAt.IsZero() || (builtin > 0 && s.ExpiresAt.Equal(s.CreatedAt.Add(builtin)))
	if !fromPolicy {
		return s.ExpiresAt
	}
	if ttl := e.policies.Of(s.Type).TTL; ttl > 0 {
		return s.CreatedAt.Add(ttl)
	}
	return time.Time{}
}

// expiryReason explains why an expired memory goes.
func (e *Engine) expiryReason(s cairn.LifecycleState, expires time.Time) string {
	if ttl := e.policies.Of(s.Type).TTL; ttl > 0 && expires.Equal(s.CreatedAt.Add(ttl)) {
		return fmt.Sprintf("expired: %s memories live %s, created %s", s.Type, plural(int(ttl/(24*time.Hour)), "day"), s.CreatedAt.Format(time.DateOnly))
	}
	return fmt.Sprintf("expired: it was set to expire on %s", expires.Format(time.DateOnly))
}

func plural(n int, unit string) string {
	if n == 1 {
		return "1 " + unit
	}
	return fmt.Sprintf("%d %ss", n, unit)
}

// AddSuperseding adds m, like AddMemory, and marks the memory oldID (or a
// unique prefix of it) as superseded by the memory stored, in one
// transaction: if either fails, nothing is written. ENOTFOUND when oldID
// does not exist; EINVALID when m folds into oldID itself, or the link
// would make a loop.
func (e *Engine) AddSuperseding(ctx context.Context, m *cairn.Memory, oldID string) (*cairn.WriteResult, *cairn.Memory, error) {
	m = cloneMemory(m)
	now := e.Now()
	e, err := e.inProject(ctx, m.Project)
	if err != nil {
		return nil, nil, err
	}
	if err := e.prepareNew(m, now); err != nil {
		return nil, nil, err
	}
	var res *cairn.WriteResult
	var old *cairn.Memory
	err = e.store.Update(ctx, func(tx cairn.Tx) error {
		prev, err := e.owned(ctx, tx, oldID)
		if err != nil {
			return err
		}
		b := e.newIndexBatch()
		if res, err = e.add(ctx, tx, b, m, now, nil, false); err != nil {
			return err
		}
		if res.Memory.ID == prev.ID {
			return cairn.Errorf(cairn.EINVALID, "%s already holds this content (same content, or same type and key); edit it instead of superseding it", prev.ID)
		}
		if a, ok := writeActivity(res, now, m.SessionID, addDetail(res)); ok {
			if err := tx.AppendActivity(ctx, []cairn.Activity{a}); err != nil {
				return err
			}
		}
		if old, err = e.update(ctx, tx, b, prev.ID, cairn.MemoryUpdate{SupersededBy: &res.Memory.ID}, now); err != nil {
			return err
		}
		return b.flush(ctx, tx)
	})
	if err != nil {
		return nil, nil, err
	}
	return res, old, nil
}

// maxSupersedeChain bounds how many memories a supersede chain shows, so
// that a chain grown without limit cannot make `cairn show` slow.
const maxSupersedeChain = 1000

// SupersedeChain returns the memories linked to id (or a unique prefix of
// it) by supersede links, followed both ways: those it replaces, directly
// or not, those that replace it, and itself. They come in supersede order,
// each replaced memory before the one that replaces it (the farthest from
// the newest first, then by creation). A memory that nothing supersedes
// and that supersedes nothing is a chain of one. Links to memories that
// no longer exist are left out, and so are, on an engine bound to a
// project, memories that project may not read. ENOTFOUND.
func (e *Engine) SupersedeChain(ctx context.Context, id string) ([]*cairn.Memory, error) {
	var out []*cairn.Memory
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		m, err := e.visible(ctx, tx, id)
		if err != nil {
			return err
		}
		seen := map[string]bool{m.ID: true}
		out = append(out, m)
		// Forward: what replaces it, and what replaces that.
		for next := m.SupersededBy; next != "" && !seen[next] && len(out) <= maxSupersedeChain; {
			n, err := tx.FindMemoryByID(ctx, next)
			if cairn.ErrorCode(err) == cairn.ENOTFOUND || (err == nil && !e.mayRead(n)) {
				break
			}
			if err != nil {
				return err
			}
			seen[n.ID] = true
			out = append(out, n)
			next = n.SupersededBy
		}
		// Backward: what it replaces, breadth first (several memories may
		// be replaced by one).
		for queue := []string{m.ID}; len(queue) > 0 && len(out) <= maxSupersedeChain; queue = queue[1:] {
			olds, err := tx.FindMemoriesSupersededBy(ctx, queue[0])
			if err != nil {
				return err
			}
			for _, o := range olds {
				if !seen[o.ID] && e.mayRead(o) {
					seen[o.ID] = true
					out = append(out, o)
					queue = append(queue, o.ID)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	sortChain(out)
	return out, nil
}

// sortChain orders a supersede chain: by the number of links from each
// memory to the newest one (most first), then by creation and id.
func sortChain(chain []*cairn.Memory) {
	byID := make(map[string]*cairn.Memory, len(chain))
	for _, m := range chain {
		byID[m.ID] = m
	}
	hops := make(map[string]int, len(chain))
	for _, m := range chain {
		n := 0
		for next := byID[m.SupersededBy]; next != nil && n < len(chain); next = byID[next.SupersededBy] {
			n++
		}
		hops[m.ID] = n
	}
	sort.SliceStable(chain, func(i, j int) bool {
		a, b := chain[i], chain[j]
		switch {
		case hops[a.ID] != hops[b.ID]:
			return hops[a.ID] > hops[b.ID]
		case !a.CreatedAt.Equal(b.CreatedAt):
			return a.CreatedAt.Before(b.CreatedAt)
		}
		return a.ID < b.ID
	})
}
