package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/wire"
)

// The lifecycle and history of memories: the supersede chain, type
// checks, the activity log and cleanup.

// The contracts of the root package that a Project implements over the
// REST API.

// Now is the clock of the Project: the time given to At, else this
// machine's clock, in UTC to the millisecond (as engine.Engine's Now).
func (p *Project) Now() time.Time {
	if !p.now.IsZero() {
		return p.now.UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
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
	var out httpapi.ListOut
	if err := p.do(ctx, http.MethodGet, p.path("/memories/"+url.PathEscape(id)+"/chain"), nil, &out); err != nil {
		return nil, err
	}
	ms := make([]*cairn.Memory, 0, len(out.Memories))
	for _, m := range out.Memories {
		ms = append(ms, m.ToMemory())
	}
	return ms, nil
}

// FindActivity returns the project's activity log, newest first, and how
// many entries match in all. The filter's project must be the Project's
// own; its memory id is taken as given (the server resolves a prefix of
// a stored memory's id, as `cairn log --memory` does); Limit 0 asks for
// every entry.
func (p *Project) FindActivity(ctx context.Context, f cairn.ActivityFilter) ([]cairn.Activity, int, error) {
	if f.Project != p.name {
		return nil, 0, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, f.Project)
	}
	q := url.Values{}
	if f.MemoryID != "" {
		q.Set("memory", f.MemoryID)
	}
	if f.SessionID != "" {
		q.Set("session", f.SessionID)
	}
	setList(q, "action", f.Actions)
	setTime(q, "after", f.After)
	setTime(q, "before", f.Before)
	q.Set("limit", strconv.Itoa(f.Limit))
	var out struct {
		Entries []wire.Activity `json:"entries"`
		Total   int             `json:"total"`
	}
	if err := p.do(ctx, http.MethodGet, p.path("/activity?"+q.Encode()), nil, &out); err != nil {
		return nil, 0, err
	}
	acts := make([]cairn.Activity, 0, len(out.Entries))
	for _, a := range out.Entries {
		acts = append(acts, cairn.Activity{ID: a.ID, At: a.At.Time(), Project: a.Project, MemoryID: a.MemoryID,
			Action: a.Action, SessionID: a.SessionID, Detail: a.Detail})
	}
	return acts, out.Total, nil
}

// Maintain applies the lifecycle rules to the project when apply, and
// otherwise reports what it would do, as engine.Engine's Maintain does;
// project must be the Project's own. Confidences come back rounded to
// the precision the server answers (wire.CleanupItem).
func (p *Project) Maintain(ctx context.Context, project string, apply bool) (*cairn.MaintenanceReport, error) {
	if project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	var out wire.CleanupReport
	if err := p.do(ctx, http.MethodPost, p.path("/cleanup?apply="+strconv.FormatBool(apply)), nil, &out); err != nil {
		return nil, err
	}
	rep := &cairn.MaintenanceReport{Project: out.Project, At: out.At.Time(), Applied: out.Applied,
		Expired: out.Expired, Deleted: out.Deleted, Decayed: out.Decayed, Pinned: out.Pinned,
		Items: make([]cairn.MaintenanceItem, 0, len(out.Items))}
	for _, it := range out.Items {
		mi := cairn.MaintenanceItem{MemoryID: it.ID, Title: it.Title, Type: it.Type, Action: it.Action,
			Reason: it.Reason, Confidence: it.Confidence, Weeks: it.Weeks}
		if it.NewConfidence != nil {
			mi.NewConfidence = *it.NewConfidence
		}
		rep.Items = append(rep.Items, mi)
	}
	return rep, nil
}
