package engine

import (
	"cmp"
	"context"
	"fmt"
	"slices"

	"github.com/cairn-dev/cairn"
)

// pinnedCap and globalCap bound how many pinned and global-scope memories
// the static tier considers; the renderer's budget picks among them.
const (
	pinnedCap = 50
	globalCap = 50
)

// ContextCandidates implements cairn.ContextService: the lasting tiers
// (pinned, global-scope, static, critical and dynamic memories, kept
// between calls in a long-lived process while the store reports the same
// rows version), what the session was already shown, a search for the
// prompt (an embeddings endpoint gets VectorSettings.PromptTimeout) and
// the memories about the files being worked on.
func (e *Engine) ContextCandidates(ctx context.Context, req cairn.CandidateRequest) (*cairn.Candidates, error) {
	if !cairn.ValidProject(req.Project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", req.Project)
	}
	if req.Now.IsZero() {
		req.Now = e.Now()
	}
	out := &cairn.Candidates{}
	if req.Session != "" {
		var err error
		if out.Shown, err = e.sessionShownIn(ctx, req.Session); err != nil {
			return nil, err
		}
	}
	var err error
	if out.Tiers, err = e.tierCandidates(ctx, req); err != nil {
		return nil, err
	}
	if q := req.Search; q != nil {
		q.Project = req.Project
		if q.Now.IsZero() {
			q.Now = req.Now
		}
		hits, r, err := e.searchMode(ctx, *q, e.vecs.PromptTimeout)
		if err != nil {
			return nil, err
		}
		out.Hits, out.Retrieval = e.publicHits(hits, q.Explain), r
	}
	if len(req.Files) > 0 {
		if out.Files, err = e.fileRefCandidates(ctx, req.Project, req.Files, req.FileTypes, req.FileLimit); err != nil {
			return nil, err
		}
	}
	if len(req.Tags) > 0 {
		if out.Tagged, err = e.tagCandidates(ctx, req.Project, req.Tags, req.TagTypes, req.TagLimit); err != nil {
			return nil, err
		}
	}
	if req.Hat != "" {
		types, err := normalizeNames("type", req.HatTypes)
		if err != nil {
			return nil, err
		}
		if out.OfHat, _, err = e.FindMemories(ctx, cairn.MemoryFilter{Project: req.Project, Hat: req.Hat, Types: types,
			Sort: cairn.SortConfidenceDesc, Limit: cmp.Or(req.HatLimit, cairn.MaxFileCandidates), SkipTotal: true}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// tierCandidates runs the lasting tiers' queries. In a long-lived process
// (a cache is configured) and on a store that reports its rows or data
// version, the results are kept until the memory rows may have changed
// (rowsVersion): the uses written after each context, which only queue
// uses and append activity entries, keep them.
func (e *Engine) tierCandidates(ctx context.Context, req cairn.CandidateRequest) ([]cairn.TierCandidates, error) {
	if !req.Pinned && len(req.StaticTypes) == 0 && len(req.CriticalTypes) == 0 && (req.DynamicCount <= 0 || len(req.DynamicTypes) == 0) {
		return nil, nil
	}
	var key string
	var version int64
	if e.cache != nil {
		// The tiers read memory rows alone: the rows version, which the
		// writes of uses and activity entries leave as it is (a fold of
		// the use queue changes it).
		if v, ok := e.rowsVersion(ctx); ok {
			key = tierKey(req)
			version = v
			if gs, ok := e.cache.tiers(key, v); ok {
				return gs, nil
			}
		}
	}
	var groups []cairn.TierCandidates
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		find := func(tier string, limit int, f cairn.MemoryFilter) error {
			f.SkipTotal = true
			ms, _, err := tx.FindMemories(ctx, f)
			if err == nil {
				groups = append(groups, cairn.TierCandidates{Tier: tier, Memories: ms, Limit: limit})
			}
			return err
		}
		// Static: pinned first, then global scope, then the static types.
		if req.Pinned {
			if err := find(cairn.ContextPinned, 0, cairn.MemoryFilter{Project: req.Project, Pinned: true, Sort: cairn.SortCreatedDesc, Limit: pinnedCap}); err != nil {
				return err
			}
		}
		if len(req.StaticTypes) > 0 {
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{GlobalScope: true, Sort: cairn.SortCreatedDesc, Limit: globalCap}); err != nil {
				return err
			}
		}
		for _, t := range req.StaticTypes {
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, Sort: cairn.SortConfidenceDesc, Limit: req.StaticPerType}); err != nil {
				return err
			}
		}
		for _, t := range req.CriticalTypes {
			if slices.Contains(req.StaticTypes, t) {
				continue
			}
			if err := find(cairn.ContextStatic, 0, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, MinConfidence: req.CriticalConfidence, Sort: cairn.SortConfidenceDesc, Limit: cmp.Or(req.CriticalPerType, req.StaticPerType)}); err != nil {
				return err
			}
		}
		// Dynamic: the newest session summaries.
		if req.DynamicCount > 0 {
			for _, t := range req.DynamicTypes {
				if err := find(cairn.ContextDynamic, req.DynamicCount, cairn.MemoryFilter{Project: req.Project, Types: []string{t}, Sort: cairn.SortCreatedDesc, Limit: req.DynamicCount + 2}); err != nil {
					return err
				}
			}
		}
		return nil
	})
	if err == nil && key != "" {
		e.cache.putTiers(key, version, groups)
	}
	return groups, err
}

// tierKey is the shape of req's lasting tiers, what their results are
// kept under.
func tierKey(req cairn.CandidateRequest) string {
	return fmt.Sprint(req.Project, req.Pinned, req.StaticTypes, req.StaticPerType, req.CriticalTypes, req.CriticalConfidence, req.CriticalPerType, req.DynamicTypes, req.DynamicCount)
}

// The lasting tiers' results are kept by request shape with the rows
// version they were read at (tierCandidates).

type tierSet struct {
	version int64
	groups  []cairn.TierCandidates
}

// maxTierSets bounds the cached tier results (one per project and
// configuration in use).
const maxTierSets = 64

func (c *postingsCache) tiers(key string, version int64) ([]cairn.TierCandidates, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ts, ok := c.tierSets[key]
	if !ok || ts.version != version {
		return nil, false
	}
	return ts.groups, true
}

func (c *postingsCache) putTiers(key string, version int64, groups []cairn.TierCandidates) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.tierSets == nil || len(c.tierSets) >= maxTierSets {
		c.tierSets = map[string]tierSet{}
	}
	c.tierSets[key] = tierSet{version: version, groups: groups}
}
