package engine

import (
	"context"
	"math"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

var (
	_ cairn.Service          = (*Engine)(nil)
	_ cairn.ActivityService  = (*Engine)(nil)
	_ cairn.LifecycleService = (*Engine)(nil)
	_ cairn.ImportService    = (*Engine)(nil)
	_ cairn.UseRecorder      = (*Engine)(nil)
)

// AddMemory implements cairn.Service.
func (e *Engine) AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	return e.addMemory(ctx, m, false)
}

// CreateMemory implements cairn.Service.
func (e *Engine) CreateMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	return e.addMemory(ctx, m, true)
}

func (e *Engine) addMemory(ctx context.Context, m *cairn.Memory, createOnly bool) (*cairn.WriteResult, error) {
	m = cloneMemory(m)
	now := e.Now()
	e, err := e.inProject(ctx, m.Project)
	if err != nil {
		return nil, err
	}
	if err := e.prepareNew(m, now); err != nil {
		return nil, err
	}
	if createOnly && m.Key == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "a memory created only if new needs a key")
	}
	var res *cairn.WriteResult
	err = e.store.Update(ctx, func(tx cairn.Tx) error {
		b := newIndexBatch()
		var err error
		if res, err = e.add(ctx, tx, b, m, now, nil, true); err != nil {
			return err
		}
		if createOnly && res.Status != cairn.StatusCreated {
			// The key was taken: returning an error rolls the upsert back.
			return cairn.Errorf(cairn.ECONFLICT, "memory %s already has type %s and key %q", res.Memory.ID, m.Type, m.Key)
		}
		if a, ok := writeActivity(res, now, m.SessionID, addDetail(res)); ok {
			if err := tx.AppendActivity(ctx, []cairn.Activity{a}); err != nil {
				return err
			}
		}
		return b.flush(ctx, tx)
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// prepareNew validates m and fills the defaults of a new memory.
func (e *Engine) prepareNew(m *cairn.Memory, now time.Time) error {
	if err := e.prepareFields(m, now); err != nil {
		return err
	}
	if m.ID == "" {
		m.ID = e.ids.next(now)
	}
	return nil
}

// prepareFields is prepareNew but for the id: it may run on several
// goroutines at once, while ids, which sort by when they were made, are
// given in the order of the memories.
func (e *Engine) prepareFields(m *cairn.Memory, now time.Time) error {
	if err := e.normalize(m); err != nil {
		return err
	}
	if m.CreatedAt.IsZero() {
		m.CreatedAt = now
	}
	m.CreatedAt = m.CreatedAt.UTC().Truncate(time.Millisecond)
	if m.UpdatedAt.IsZero() || m.UpdatedAt.Before(m.CreatedAt) {
		m.UpdatedAt = m.CreatedAt
	}
	m.UpdatedAt = m.UpdatedAt.UTC().Truncate(time.Millisecond)
	if m.ExpiresAt.IsZero() && m.HasTag(TagScopeSession) {
		m.ExpiresAt = m.CreatedAt.Add(SessionScopeTTL)
	}
	if m.ExpiresAt.IsZero() {
		if ttl := e.policies.Of(m.Type).TTL; ttl > 0 {
			m.ExpiresAt = m.CreatedAt.Add(ttl)
		}
	}
	return nil
}

// add stores a prepared memory, or folds it into the memory with the same
// key or the same content.
// known, when not nil, holds every stored memory's content hash: a hash
// it does not hold cannot match, so no lookup is needed.
// nearDup, when set, also folds a memory without a key into a live memory
// of the same project, scope and type with near-identical content (see
// NearDuplicateThreshold). Bulk import leaves it unset (exact content
// only, to stay fast), and so does a supersede, which replaces on purpose.
func (e *Engine) add(ctx context.Context, tx cairn.Tx, b *indexBatch, m *cairn.Memory, now time.Time, known *knownKeys, nearDup bool) (*cairn.WriteResult, error) {
	if m.Key != "" {
		old, err := tx.FindMemoryByKey(ctx, m.Project, m.Type, m.Key)
		switch {
		case err == nil:
			return e.upsertKey(ctx, tx, b, old, m, now)
		case cairn.ErrorCode(err) != cairn.ENOTFOUND:
			return nil, err
		}
	} else if known == nil || known.hasHash(m.Project, m.ContentHash) {
		same, err := tx.FindMemoriesByHash(ctx, m.Project, m.ContentHash)
		if err != nil {
			return nil, err
		}
		for _, old := range same {
			if old.Live(now) {
				return e.reinforce(ctx, tx, b, old, m, now)
			}
		}
	}
	if m.Key == "" && nearDup {
		old, err := e.findNearDuplicate(ctx, tx, m, now)
		if err != nil {
			return nil, err
		}
		if old != nil {
			return e.reinforce(ctx, tx, b, old, m, now)
		}
	}
	if nearDup {
		old, err := e.findConflict(ctx, tx, m, now)
		if err != nil {
			return nil, err
		}
		if old != nil {
			if err := e.linkConflict(ctx, tx, b, m, old); err != nil {
				return nil, err
			}
		}
	}
	if err := b.add(ctx, tx, m); err != nil {
		return nil, err
	}
	if err := tx.CreateMemory(ctx, m); err != nil {
		if cairn.ErrorCode(err) == cairn.ECONFLICT {
			return nil, cairn.WrapError(cairn.ECONFLICT, err, "a memory with id %s already exists", m.ID)
		}
		return nil, err
	}
	if known != nil {
		known.add(m.ID, m.Project, m.ContentHash)
	}
	return &cairn.WriteResult{Memory: m, Status: cairn.StatusCreated}, nil
}

// upsertKey rewrites the memory holding m's key with m's content (seed
// 002): confidence only rises, tags and file refs are replaced when given.
func (e *Engine) upsertKey(ctx context.Context, tx cairn.Tx, b *indexBatch, old, m *cairn.Memory, now time.Time) (*cairn.WriteResult, error) {
	n := cloneMemory(old)
	n.Title, n.Content, n.ContentHash, n.Flag = m.Title, m.Content, m.ContentHash, m.Flag
	if len(m.Tags) > 0 {
		n.Tags = m.Tags
	}
	if len(m.FileRefs) > 0 {
		n.FileRefs = m.FileRefs
	}
	n.Confidence = math.Max(old.Confidence, m.Confidence)
	for _, f := range []struct {
		dst *string
		v   string
	}{
		{&n.Agent, m.Agent}, {&n.Hat, m.Hat}, {&n.TaskID, m.TaskID}, {&n.SessionID, m.SessionID},
	} {
		if f.v != "" {
			*f.dst = f.v
		}
	}
	if m.Pinned {
		n.Pinned = true
	}
	if equalMemory(old, n) {
		return &cairn.WriteResult{Memory: old, Status: cairn.StatusUnchanged}, nil
	}
	n.UpdatedAt = now
	if !m.ExpiresAt.IsZero() && m.ExpiresAt.After(n.ExpiresAt) {
		n.ExpiresAt = m.ExpiresAt
	}
	if err := b.reindex(ctx, tx, old, n); err != nil {
		return nil, err
	}
	if err := tx.UpdateMemory(ctx, n); err != nil {
		return nil, err
	}
	return &cairn.WriteResult{Memory: n, Status: cairn.StatusUpdated}, nil
}

// reinforce folds a repeated memory into the stored one: one more use, a
// confidence boost (never a drop), and the union of tags and file refs.
// A repeat from the session that wrote the memory is the same observation
// read again (a transcript and the hook's last message, a capture run
// twice): it adds tags and file refs but no use or confidence, and is
// unchanged when it adds nothing.
func (e *Engine) reinforce(ctx context.Context, tx cairn.Tx, b *indexBatch, old, m *cairn.Memory, now time.Time) (*cairn.WriteResult, error) {
	n := cloneMemory(old)
	status := cairn.StatusReinforced
	if sameSession := m.SessionID != "" && m.SessionID == old.SessionID; !sameSession {
		n.UseCount++
		c := math.Max(old.Confidence, m.Confidence)
		if c < cairn.MaxConfidence {
			c = math.Min(cairn.MaxConfidence, c+cairn.UsageBoost)
		}
		n.Confidence = c
	} else {
		status = cairn.StatusUpdated
	}
	n.Tags = union(n.Tags, m.Tags)
	n.FileRefs = union(n.FileRefs, m.FileRefs)
	if len(n.Tags) > cairn.MaxTags {
		n.Tags = n.Tags[:cairn.MaxTags]
	}
	if len(n.FileRefs) > cairn.MaxFileRefs {
		n.FileRefs = n.FileRefs[:cairn.MaxFileRefs]
	}
	if equalMemory(old, n) {
		return &cairn.WriteResult{Memory: old, Status: cairn.StatusUnchanged}, nil
	}
	n.UpdatedAt = now
	if err := b.reindex(ctx, tx, old, n); err != nil {
		return nil, err
	}
	if err := tx.UpdateMemory(ctx, n); err != nil {
		return nil, err
	}
	return &cairn.WriteResult{Memory: n, Status: status}, nil
}

func union(a, b []string) []string {
	out := slices.Clone(a)
	for _, x := range b {
		if !slices.Contains(out, x) {
			out = append(out, x)
		}
	}
	return out
}

func cloneMemory(m *cairn.Memory) *cairn.Memory {
	c := *m
	c.Tags = slices.Clone(m.Tags)
	c.FileRefs = slices.Clone(m.FileRefs)
	return &c
}

// equalMemory compares the stored fields of two memories.
func equalMemory(a, b *cairn.Memory) bool {
	return a.ID == b.ID && a.Project == b.Project && a.Scope == b.Scope && a.Type == b.Type &&
		a.Key == b.Key && a.Title == b.Title && a.Content == b.Content &&
		slices.Equal(a.Tags, b.Tags) && slices.Equal(a.FileRefs, b.FileRefs) &&
		a.Confidence == b.Confidence && a.Source == b.Source && a.Agent == b.Agent &&
		a.Hat == b.Hat && a.TaskID == b.TaskID && a.SessionID == b.SessionID &&
		a.CreatedAt.Equal(b.CreatedAt) && a.UpdatedAt.Equal(b.UpdatedAt) &&
		a.LastUsedAt.Equal(b.LastUsedAt) && a.VerifiedAt.Equal(b.VerifiedAt) &&
		a.ExpiresAt.Equal(b.ExpiresAt) && a.UseCount == b.UseCount && a.Pinned == b.Pinned &&
		a.SupersededBy == b.SupersededBy && a.Flag == b.Flag
}

// FindMemoryByID implements cairn.Service. On an engine bound to a
// project (WithProject), only that project's memories and the global ones
// are found.
func (e *Engine) FindMemoryByID(ctx context.Context, id string) (*cairn.Memory, error) {
	var m *cairn.Memory
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		m, err = e.visible(ctx, tx, id)
		return err
	})
	return m, err
}

// visible returns the memory with id, or a unique prefix of it of at least
// 6 characters, among those the engine's project may read (every memory
// when it has none); an id or prefix given without cairn's "mem-" is
// looked up with it too. A memory it may not read is not found, whether
// or not it exists. An ambiguous prefix is EINVALID naming up to five of
// the ids it matches.
func (e *Engine) visible(ctx context.Context, tx cairn.Tx, id string) (*cairn.Memory, error) {
	m, err := e.visibleAs(ctx, tx, id)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND && !strings.HasPrefix(id, "mem-") && len(id) >= 6 {
		if m, err2 := e.visibleAs(ctx, tx, "mem-"+id); cairn.ErrorCode(err2) != cairn.ENOTFOUND {
			return m, err2
		}
	}
	return m, err
}

func (e *Engine) visibleAs(ctx context.Context, tx cairn.Tx, id string) (*cairn.Memory, error) {
	m, err := tx.FindMemoryByID(ctx, id)
	if err == nil && !e.mayRead(m) {
		err = cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s", id)
	}
	if cairn.ErrorCode(err) != cairn.ENOTFOUND || len(id) < 6 {
		return m, err
	}
	ids, err := tx.FindMemoryIDsByPrefix(ctx, e.project, id, 6)
	if err != nil {
		return nil, err
	}
	switch len(ids) {
	case 0:
		if e.project != "" {
			return nil, cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s in project %s; `cairn list` shows the ids", id, e.project)
		}
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s; `cairn list` shows the ids", id)
	case 1:
		return tx.FindMemoryByID(ctx, ids[0])
	}
	more := ""
	if len(ids) > 5 {
		ids, more = ids[:5], ", …"
	}
	return nil, cairn.Errorf(cairn.EINVALID, "id prefix %s matches several memories (%s%s); give more of the id", id, strings.Join(ids, ", "), more)
}

// owned returns the memory with id (or a unique prefix) if the engine's
// project may change it: its own memories only. A global memory of
// another project is changed from that project.
func (e *Engine) owned(ctx context.Context, tx cairn.Tx, id string) (*cairn.Memory, error) {
	m, err := e.visible(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if e.project != "" && m.Project != e.project {
		return nil, cairn.Errorf(cairn.EINVALID, "memory %s is a global memory of project %s; change or remove it from that project", m.ID, m.Project)
	}
	return m, nil
}

// mayRead reports whether the engine's project may read m: its own
// memories and the global-scope ones (every memory, without a project).
func (e *Engine) mayRead(m *cairn.Memory) bool {
	return e.project == "" || m.Project == e.project || m.Scope == cairn.ScopeGlobal
}

// FindMemories implements cairn.Service.
func (e *Engine) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	if !cairn.ValidProject(f.Project) {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "project %q is not valid", f.Project)
	}
	if err := checkFilterTags(f.Tags); err != nil {
		return nil, 0, err
	}
	var out []*cairn.Memory
	var total int
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		out, total, err = tx.FindMemories(ctx, f)
		return err
	})
	return out, total, err
}

// UpdateMemory implements cairn.Service.
func (e *Engine) UpdateMemory(ctx context.Context, id string, upd cairn.MemoryUpdate) (*cairn.Memory, error) {
	var out *cairn.Memory
	err := e.store.Update(ctx, func(tx cairn.Tx) error {
		b := newIndexBatch()
		var err error
		if out, err = e.update(ctx, tx, b, id, upd, e.Now()); err != nil {
			return err
		}
		return b.flush(ctx, tx)
	})
	return out, err
}

// update applies upd to the memory id (or unique id prefix) within tx and
// records what changed in the activity log. A change of type without a
// new expiry moves an expiry that came from the old type's time to live
// to the new type's (a learning promoted to a pattern stops expiring); an
// expiry set by hand stays.
func (e *Engine) update(ctx context.Context, tx cairn.Tx, b *indexBatch, id string, upd cairn.MemoryUpdate, now time.Time) (*cairn.Memory, error) {
	old, err := e.owned(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	if e, err = e.inProjectTx(ctx, tx, old.Project); err != nil {
		return nil, err
	}
	if upd.IfContent != nil && old.Content != *upd.IfContent {
		return nil, cairn.Errorf(cairn.ECONFLICT, "memory %s changed since it was read; read it again", old.ID)
	}
	if upd.Title != nil && len(*upd.Title) > cairn.MaxTitleBytes {
		// A title an edit gives is a person's or an agent's, whatever
		// the memory's source: too long is theirs to shorten.
		return nil, sizeError("title", len(*upd.Title), cairn.MaxTitleBytes)
	}
	if upd.Confidence != nil && *upd.Confidence < old.Confidence && !upd.LowerConfidence {
		return nil, cairn.Errorf(cairn.EINVALID, "an update never lowers a memory's confidence (%s is at %.2f, %.2f was given); lowering is its own act: cairn edit --lower-confidence, or lower_confidence in the REST API and MCP update",
			old.ID, old.Confidence, *upd.Confidence)
	}
	n := cloneMemory(old)
	applyUpdate(n, upd)
	if n.Title != old.Title || n.Content != old.Content {
		n.Flag = "" // found again in the new text
	}
	if err := e.normalize(n); err != nil {
		return nil, err
	}
	if n.Type != old.Type && upd.ExpiresAt == nil && e.expiryFromPolicy(old) {
		n.ExpiresAt = time.Time{}
		if ttl := e.policies.Of(n.Type).TTL; ttl > 0 {
			n.ExpiresAt = n.CreatedAt.Add(ttl)
		}
	}
	if n.Key != "" && (n.Key != old.Key || n.Type != old.Type) {
		other, err := tx.FindMemoryByKey(ctx, n.Project, n.Type, n.Key)
		if err == nil && other.ID != n.ID {
			return nil, cairn.Errorf(cairn.ECONFLICT, "memory %s already has type %s and key %q", other.ID, n.Type, n.Key)
		}
	}
	if n.SupersededBy != "" && n.SupersededBy != old.SupersededBy {
		if err := e.checkSupersede(ctx, tx, n); err != nil {
			return nil, err
		}
	}
	if equalMemory(old, n) {
		return old, nil
	}
	n.UpdatedAt = now
	if err := b.reindex(ctx, tx, old, n); err != nil {
		return nil, err
	}
	if err := tx.UpdateMemory(ctx, n); err != nil {
		return nil, err
	}
	if err := tx.AppendActivity(ctx, e.updateActivities(old, n, now)); err != nil {
		return nil, err
	}
	return n, nil
}

// expiryFromPolicy reports whether m's expiry is the one its type's time
// to live gives (or none, for a type without one).
func (e *Engine) expiryFromPolicy(m *cairn.Memory) bool {
	ttl := e.policies.Of(m.Type).TTL
	if ttl == 0 {
		return m.ExpiresAt.IsZero()
	}
	return m.ExpiresAt.Equal(m.CreatedAt.Add(ttl))
}

// checkSupersede validates n's new SupersededBy: an existing other memory,
// of n's project or of global scope, whose own chain of replacements does
// not lead back to n. A link to a memory deleted since ends a chain. On an
// engine bound to a project, a replacement it may not read is not found.
func (e *Engine) checkSupersede(ctx context.Context, tx cairn.Tx, n *cairn.Memory) error {
	if n.SupersededBy == n.ID {
		return cairn.Errorf(cairn.EINVALID, "a memory cannot supersede itself")
	}
	seen := map[string]bool{}
	for next := n.SupersededBy; next != "" && !seen[next]; {
		seen[next] = true
		m, err := tx.FindMemoryByID(ctx, next)
		switch {
		case err == nil && next == n.SupersededBy && !e.mayRead(m),
			cairn.ErrorCode(err) == cairn.ENOTFOUND && next == n.SupersededBy:
			return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s to supersede %s", next, n.ID)
		case cairn.ErrorCode(err) == cairn.ENOTFOUND:
			return nil
		case err != nil:
			return err
		}
		if next == n.SupersededBy && m.Project != n.Project && m.Scope != cairn.ScopeGlobal {
			return cairn.Errorf(cairn.EINVALID, "%s belongs to project %q: a memory can only be superseded by one of its own project or a global one", m.ID, m.Project)
		}
		if m.SupersededBy == n.ID {
			return cairn.Errorf(cairn.EINVALID, "%s is itself superseded, directly or through a chain, by %s; superseding %s by it would make a loop", n.SupersededBy, n.ID, n.ID)
		}
		next = m.SupersededBy
	}
	return nil
}

func applyUpdate(n *cairn.Memory, u cairn.MemoryUpdate) {
	set := func(dst *string, v *string) {
		if v != nil {
			*dst = *v
		}
	}
	derivedTitle := n.Title == cairn.TitleFromContent(n.Content)
	set(&n.Type, u.Type)
	set(&n.Key, u.Key)
	set(&n.Content, u.Content)
	set(&n.SupersededBy, u.SupersededBy)
	set(&n.Agent, u.Agent)
	set(&n.Hat, u.Hat)
	set(&n.TaskID, u.TaskID)
	set(&n.SessionID, u.SessionID)
	if u.Title != nil {
		n.Title = *u.Title
	} else if u.Content != nil && derivedTitle {
		n.Title = "" // derived again from the new content
	}
	if u.Tags != nil {
		n.Tags = slices.Clone(*u.Tags)
	}
	if u.FileRefs != nil {
		n.FileRefs = slices.Clone(*u.FileRefs)
	}
	if u.Confidence != nil {
		n.Confidence = *u.Confidence
	}
	if u.Scope != nil {
		n.Scope = *u.Scope
	}
	if u.Pinned != nil {
		n.Pinned = *u.Pinned
	}
	if u.ExpiresAt != nil {
		n.ExpiresAt = *u.ExpiresAt
	}
	if u.VerifiedAt != nil {
		n.VerifiedAt = *u.VerifiedAt
	}
}

// DeleteMemory implements cairn.Service.
func (e *Engine) DeleteMemory(ctx context.Context, id string) error {
	return e.store.Update(ctx, func(tx cairn.Tx) error {
		m, err := e.owned(ctx, tx, id)
		if err != nil {
			return err
		}
		b := newIndexBatch()
		if err := b.remove(ctx, tx, m); err != nil {
			return err
		}
		if err := b.flush(ctx, tx); err != nil {
			return err
		}
		if err := tx.DeleteMemory(ctx, m.ID); err != nil {
			return err
		}
		return tx.AppendActivity(ctx, []cairn.Activity{activityOf(m, cairn.ActionDeleted, e.Now(), "", m.Title)})
	})
}
