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

// addBody is the body of POST /memories.
type addBody struct {
	Type               string    `json:"type,omitempty"`
	Key                string    `json:"key,omitempty"`
	Title              string    `json:"title,omitempty"`
	Content            string    `json:"content"`
	Tags               []string  `json:"tags,omitempty"`
	FileRefs           []string  `json:"file_refs,omitempty"`
	Confidence         float64   `json:"confidence,omitempty"`
	Scope              string    `json:"scope,omitempty"`
	Pinned             bool      `json:"pinned,omitempty"`
	ExpiresAt          wire.Time `json:"expires_at,omitzero"`
	CreatedByAgent     string    `json:"created_by_agent,omitempty"`
	CreatedByHat       string    `json:"created_by_hat,omitempty"`
	CreatedByTaskID    string    `json:"created_by_task_id,omitempty"`
	CreatedBySessionID string    `json:"created_by_session_id,omitempty"`
	NewType            bool      `json:"new_type,omitempty"`
}

type writeAnswer struct {
	Status string       `json:"status"`
	Memory *wire.Memory `json:"memory"`
}

// AddMemory stores m in the project (m.Project is ignored), as
// cairn.Service's AddMemory does; its type is taken as given, even one
// letter away from a known type (check that first with NearType if it
// matters). The source is always explicit.
func (p *Project) AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	in := addBody{Type: m.Type, Key: m.Key, Title: m.Title, Content: m.Content, Tags: m.Tags, FileRefs: m.FileRefs,
		Confidence: m.Confidence, Scope: string(m.Scope), Pinned: m.Pinned, ExpiresAt: wire.Time(m.ExpiresAt),
		CreatedByAgent: m.Agent, CreatedByHat: m.Hat, CreatedByTaskID: m.TaskID, CreatedBySessionID: m.SessionID,
		NewType: true}
	var out writeAnswer
	if err := p.do(ctx, http.MethodPost, p.path("/memories"), in, &out); err != nil {
		return nil, err
	}
	if out.Memory == nil {
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the server's answer holds no memory")
	}
	return &cairn.WriteResult{Memory: out.Memory.ToMemory(), Status: out.Status}, nil
}

// CreateMemory is not offered by the REST API (it has no create-only
// route): it fails with EUNAVAILABLE and changes nothing.
func (p *Project) CreateMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the REST API has no create-only route; use AddMemory")
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

type listAnswer struct {
	Memories []*wire.Memory `json:"memories"`
	Total    int            `json:"total"`
}

// FindMemories lists the project's memories. The API answers the filter's
// project, global memories, types, tags, minimum confidence, dates,
// session, sort, limit (at most 1000; 0 means 50) and offset; EINVALID
// for a filter that asks for more (ids, pinned only, …).
func (p *Project) FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error) {
	if len(f.IDs) > 0 || f.Pinned || f.GlobalScope {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "the REST API lists by type, tag, confidence, date, session, agent and file references only")
	}
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
	var out listAnswer
	if err := p.do(ctx, http.MethodGet, p.path("/memories?"+q.Encode()), nil, &out); err != nil {
		return nil, 0, err
	}
	ms := make([]*cairn.Memory, 0, len(out.Memories))
	for _, m := range out.Memories {
		ms = append(ms, m.ToMemory())
	}
	return ms, out.Total, nil
}

// updateBody is the body of PATCH /memories/{id}.
type updateBody struct {
	Type               *string    `json:"type,omitempty"`
	Key                *string    `json:"key,omitempty"`
	Title              *string    `json:"title,omitempty"`
	Content            *string    `json:"content,omitempty"`
	Tags               *[]string  `json:"tags,omitempty"`
	FileRefs           *[]string  `json:"file_refs,omitempty"`
	Confidence         *float64   `json:"confidence,omitempty"`
	Scope              *string    `json:"scope,omitempty"`
	Pinned             *bool      `json:"pinned,omitempty"`
	SupersededBy       *string    `json:"superseded_by,omitempty"`
	ExpiresAt          *wire.Time `json:"expires_at,omitempty"`
	VerifiedAt         *wire.Time `json:"verified_at,omitempty"`
	CreatedByAgent     *string    `json:"created_by_agent,omitempty"`
	CreatedByHat       *string    `json:"created_by_hat,omitempty"`
	CreatedByTaskID    *string    `json:"created_by_task_id,omitempty"`
	CreatedBySessionID *string    `json:"created_by_session_id,omitempty"`
	NewType            bool       `json:"new_type,omitempty"`
}

// UpdateMemory applies upd to the memory. ENOTFOUND, EINVALID; an update
// that is conditional (IfContent) is EINVALID: the API has no such
// update.
func (p *Project) UpdateMemory(ctx context.Context, id string, upd cairn.MemoryUpdate) (*cairn.Memory, error) {
	if upd.IfContent != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "the REST API has no conditional update")
	}
	in := updateBody{Type: upd.Type, Key: upd.Key, Title: upd.Title, Content: upd.Content, Tags: upd.Tags,
		FileRefs: upd.FileRefs, Confidence: upd.Confidence, Pinned: upd.Pinned, SupersededBy: upd.SupersededBy,
		CreatedByAgent: upd.Agent, CreatedByHat: upd.Hat, CreatedByTaskID: upd.TaskID, CreatedBySessionID: upd.SessionID,
		NewType: true}
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

// DeleteMemory removes a memory. ENOTFOUND.
func (p *Project) DeleteMemory(ctx context.Context, id string) error {
	return p.do(ctx, http.MethodDelete, p.path("/memories/"+url.PathEscape(id)), nil, nil)
}

// Stats describes the project's memories; project must be the Project's
// own (EINVALID otherwise).
func (p *Project) Stats(ctx context.Context, project string) (*cairn.Stats, error) {
	if project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	var out wire.Stats
	if err := p.do(ctx, http.MethodGet, p.path("/stats"), nil, &out); err != nil {
		return nil, err
	}
	return &cairn.Stats{Project: out.Project, Total: out.Total, ByType: out.ByType, GlobalTotal: out.GlobalTotal,
		IndexDocs: out.IndexDocs, DeadDocs: out.IndexDeadDocs}, nil
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
