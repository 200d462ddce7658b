package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Memories: add, get, list, update, delete (the routes of
// /api/projects/{project}/memories).

// AddMemory stores m in the project (m.Project is ignored), as
// cairn.Service's AddMemory does; its type is taken as given, even one
// letter away from a known type (check that first with NearType if it
// matters). An empty source is explicit.
func (p *Project) AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	res, _, err := p.add(ctx, m, "")
	return res, err
}

// AddSuperseding stores m and marks the memory oldID (an id or unique
// prefix) as superseded by it, in one write on the server, as
// engine.Engine's AddSuperseding does; it returns the replaced memory's
// id in a memory of that id only (the server answers no more of it).
func (p *Project) AddSuperseding(ctx context.Context, m *cairn.Memory, oldID string) (*cairn.WriteResult, *cairn.Memory, error) {
	if strings.TrimSpace(oldID) == "" {
		return nil, nil, cairn.Errorf(cairn.EINVALID, "the id of the memory to supersede is empty")
	}
	return p.add(ctx, m, oldID)
}

func (p *Project) add(ctx context.Context, m *cairn.Memory, supersedes string) (*cairn.WriteResult, *cairn.Memory, error) {
	return p.send(ctx, m, supersedes, false)
}

func (p *Project) send(ctx context.Context, m *cairn.Memory, supersedes string, createOnly bool) (*cairn.WriteResult, *cairn.Memory, error) {
	in := wire.AddIn{MemoryIn: wire.MemoryInOf(m), NewType: true, Supersedes: supersedes, CreateOnly: createOnly}
	var out wire.WriteOut
	if err := p.do(ctx, http.MethodPost, p.path("/memories"), in, &out); err != nil {
		return nil, nil, err
	}
	if out.Memory == nil {
		return nil, nil, cairn.Errorf(cairn.EUNAVAILABLE, "the server's answer holds no memory")
	}
	var replaced *cairn.Memory
	if len(out.Supersedes) > 0 {
		replaced = &cairn.Memory{ID: out.Supersedes[0]}
	}
	return &cairn.WriteResult{Memory: out.Memory.ToMemory(), Status: out.Status}, replaced, nil
}

// CreateMemory stores m as a new memory only if no memory of the project
// has its type and key, as cairn.Service's CreateMemory does (ECONFLICT,
// nothing changed, when the key is taken; m needs a key). Its type is
// taken as given.
func (p *Project) CreateMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	if m.Key == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "a memory created only if new needs a key")
	}
	res, _, err := p.send(ctx, m, "", true)
	return res, err
}

// FindMemoryByID returns a memory by id or unique id prefix. ENOTFOUND,
// or EINVALID for an ambiguous prefix.
func (p *Project) FindMemoryByID(ctx context.Context, id string) (*cairn.Memory, error) {
	if strings.TrimSpace(id) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the id is empty")
	}
	var out wire.Memory
	if err := p.do(ctx, http.MethodGet, p.path("/memories/"+url.PathEscape(id)), nil, &out); err != nil {
		return nil, err
	}
	return out.ToMemory(), nil
}

// FindMemories lists the project's memories. The API answers the filter's
// project, global memories, types, tags, minimum confidence, dates,
// session, agent, source, never used, expiry, file references, sort,
// limit and offset; EINVALID for a filter that asks for
// more (ids, pinned only, …). Limit 0 asks for every memory; a list
// longer than the most the server answers at once (1000) is read in
// pages, between which another writer may change it.
func (p *Project) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	if len(f.IDs) > 0 || f.Pinned || f.GlobalScope {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "the REST API lists by type, tag, confidence, date, session, agent, source, use, expiry and file references only")
	}
	if f.Limit < 0 || f.Offset < 0 {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "limit and offset cannot be negative")
	}
	var all []*cairn.Memory
	for {
		page := f
		page.Limit, page.Offset = maxPage, f.Offset+len(all)
		if f.Limit > 0 {
			page.Limit = min(maxPage, f.Limit-len(all))
		}
		ms, total, err := p.findPage(ctx, page)
		if err != nil {
			return nil, 0, err
		}
		all = append(all, ms...)
		if len(ms) < page.Limit || f.Offset+len(all) >= total || len(all) == f.Limit {
			return all, total, nil
		}
	}
}

// maxPage is the most memories GET /memories answers at once.
const maxPage = 1000

// findPage lists one page of memories: f.Limit is at most maxPage.
func (p *Project) findPage(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	q := url.Values{}
	q.Set("global", strconv.FormatBool(f.IncludeGlobal))
	setList(q, "type", f.Types)
	setList(q, "tag", f.Tags)
	if f.MinConfidence != 0 {
		q.Set("min_confidence", strconv.FormatFloat(f.MinConfidence, 'g', -1, 64))
	}
	setTime(q, "after", f.After)
	setTime(q, "before", f.Before)
	if f.Session != "" {
		q.Set("session", f.Session)
	}
	if f.Agent != "" {
		q.Set("agent", f.Agent)
	}
	if f.HasFileRefs {
		q.Set("has_files", "true")
	}
	if f.Source != "" {
		q.Set("source", string(f.Source))
	}
	if f.NeverUsed {
		q.Set("never_used", "true")
	}
	setTime(q, "expires_after", f.ExpiresAfter)
	setTime(q, "expires_before", f.ExpiresBefore)
	if f.SkipTotal {
		q.Set("skip_total", "true")
	}
	if f.Sort != "" {
		q.Set("sort", f.Sort)
	}
	if f.Limit != 0 {
		q.Set("limit", strconv.Itoa(f.Limit))
	}
	if f.Offset != 0 {
		q.Set("offset", strconv.Itoa(f.Offset))
	}
	var out wire.ListOut
	if err := p.do(ctx, http.MethodGet, p.path("/memories?"+q.Encode()), nil, &out); err != nil {
		return nil, 0, err
	}
	ms := make([]*cairn.Memory, 0, len(out.Memories))
	for _, m := range out.Memories {
		ms = append(ms, m.ToMemory())
	}
	return ms, out.Total, nil
}

// UpdateMemory applies upd to the memory. ENOTFOUND, EINVALID; an update
// that is conditional (IfContent) is EINVALID: the API has no such
// update.
func (p *Project) UpdateMemory(ctx context.Context, id string, upd cairn.MemoryUpdate) (*cairn.Memory, error) {
	if upd.IfContent != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "the REST API has no conditional update")
	}
	in := wire.UpdateIn{Type: upd.Type, Key: upd.Key, Title: upd.Title, Content: upd.Content,
		Tags: (*wire.List)(nonNil(upd.Tags)), FileRefs: (*wire.List)(nonNil(upd.FileRefs)), Confidence: upd.Confidence,
		Pinned: upd.Pinned, SupersededBy: upd.SupersededBy, CreatedByAgent: (*wire.Text)(upd.Agent),
		CreatedByHat: (*wire.Text)(upd.Hat), CreatedByTaskID: (*wire.Text)(upd.TaskID),
		CreatedBySessionID: (*wire.Text)(upd.SessionID), NewType: true, LowerConfidence: upd.LowerConfidence}
	if upd.Scope != nil {
		s := string(*upd.Scope)
		in.Scope = &s
	}
	if upd.ExpiresAt != nil {
		t := wire.Time(*upd.ExpiresAt)
		in.ExpiresAt = &t
	}
	if upd.VerifiedAt != nil {
		t := wire.Time(*upd.VerifiedAt)
		in.VerifiedAt = &t
	}
	var out wire.Memory
	if err := p.do(ctx, http.MethodPatch, p.path("/memories/"+url.PathEscape(id)), in, &out); err != nil {
		return nil, err
	}
	return out.ToMemory(), nil
}

// nonNil is l, with a nil list made empty: JSON null would leave the
// field unchanged, where an empty list clears it.
func nonNil(l *[]string) *[]string {
	if l == nil || *l != nil {
		return l
	}
	empty := []string{}
	return &empty
}

// DeleteMemory removes a memory. ENOTFOUND.
func (p *Project) DeleteMemory(ctx context.Context, id string) error {
	return p.do(ctx, http.MethodDelete, p.path("/memories/"+url.PathEscape(id)), nil, nil)
}

func setList(q url.Values, name string, vals []string) {
	if len(vals) > 0 {
		q.Set(name, strings.Join(vals, ","))
	}
}

func setTime(q url.Values, name string, t time.Time) {
	if !t.IsZero() {
		q.Set(name, wire.FormatTime(t))
	}
}

// NearType returns the known type one edit away from typ, or "", as the
// server's types know it; project must be the Project's own (EINVALID
// otherwise).
func (p *Project) NearType(ctx context.Context, project, typ string) (string, error) {
	if project != p.name {
		return "", cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	var out struct {
		Near string `json:"near"`
	}
	if err := p.do(ctx, http.MethodGet, p.path("/types/near?type="+url.QueryEscape(typ)), nil, &out); err != nil {
		return "", err
	}
	return out.Near, nil
}

// SupersedeChain returns the supersede chain of the memory id (an id or
// unique prefix), replaced memories first; a memory in no chain is
// returned alone. ENOTFOUND.
func (p *Project) SupersedeChain(ctx context.Context, id string) ([]*cairn.Memory, error) {
	if strings.TrimSpace(id) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the id is empty")
	}
	var out wire.ListOut
	if err := p.do(ctx, http.MethodGet, p.path("/memories/"+url.PathEscape(id)+"/chain"), nil, &out); err != nil {
		return nil, err
	}
	ms := make([]*cairn.Memory, 0, len(out.Memories))
	for _, m := range out.Memories {
		ms = append(ms, m.ToMemory())
	}
	return ms, nil
}
