package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// The project as a whole (httpapi's project.go): its activity log,
// cleanup, statistics and imports.

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

// Stats describes the project's memories; project must be the Project's
// own (EINVALID otherwise).
func (p *Project) Stats(ctx context.Context, project string) (*cairn.Stats, error) {
	if project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	out, err := p.stats(ctx)
	if err != nil {
		return nil, err
	}
	return &cairn.Stats{Project: out.Project, Total: out.Total, ByType: out.ByType, GlobalTotal: out.GlobalTotal,
		IndexDocs: out.IndexDocs, DeadDocs: out.IndexDeadDocs}, nil
}

func (p *Project) stats(ctx context.Context) (*wire.StatsOut, error) {
	var out wire.StatsOut
	if err := p.do(ctx, http.MethodGet, p.path("/stats"), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// VectorCoverage says how many memories of the project have a vector of
// the server's embeddings model; ok is false when the server embeds
// nothing. project must be the Project's own (EINVALID otherwise).
func (p *Project) VectorCoverage(ctx context.Context, project string) (n cairn.VectorCount, model string, ok bool, err error) {
	if project != p.name {
		return n, "", false, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	out, err := p.stats(ctx)
	if err != nil || out.Vectors == nil {
		return n, "", false, err
	}
	return cairn.VectorCount{Memories: out.Vectors.Memories, Embedded: out.Vectors.Embedded}, out.Vectors.Model, true, nil
}

// ImportStream imports what r holds, as `cairn import` reads a file (JSON
// Lines, an export document, a JSON array), streamed to the server in one
// request: one transaction there, atomic unless opts.SkipInvalid, the
// lines of problems those of r. opts.Project is the Project's own. The
// request waits for the server as long as ctx lets it (an import of a
// million memories takes a while), not the client's timeout. An error of
// reading r is returned as it is; nothing is stored then.
func (p *Project) ImportStream(ctx context.Context, r io.Reader, opts cairn.ImportOptions) (*cairn.ImportReport, error) {
	if opts.Project != "" && opts.Project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, opts.Project)
	}
	body := &readErr{r: r}
	var out cairn.ImportReport
	err := p.patient().do(ctx, http.MethodPost, p.path("/import?skip_invalid="+strconv.FormatBool(opts.SkipInvalid)), body, &out)
	if rerr := body.err(); rerr != nil {
		return nil, rerr // the request failed for it
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// readErr keeps the first error of reading r other than io.EOF: a
// transport that fails for it says only that the request failed.
type readErr struct {
	r     io.Reader
	mu    sync.Mutex
	first error
}

// Capture implements cairn.CaptureService: the output goes to the
// server, which stores its signals and reports them, in one request.
func (p *Project) Capture(ctx context.Context, r cairn.CaptureRequest) (*cairn.CaptureReport, error) {
	in := wire.CaptureIn{Text: r.Text, Hat: r.Hat, Agent: r.Agent, Task: r.Task, Session: r.Session, HatTransition: r.HatTransition}
	var out wire.CaptureReport
	if err := p.do(ctx, http.MethodPost, p.path("/capture"), in, &out); err != nil {
		return nil, err
	}
	return out.Report(), nil
}

// RecordTaskEvent implements cairn.TaskService: the server stores what
// the event says, in one request.
func (p *Project) RecordTaskEvent(ctx context.Context, ev cairn.TaskEvent) (*cairn.TaskReport, error) {
	in := wire.TaskEventIn{Event: ev.Event, Task: ev.Task, Title: ev.Title, Text: ev.Text, Files: ev.Files,
		Agent: ev.Agent, Session: ev.Session, Hat: ev.Hat}
	var out wire.TaskReport
	if err := p.do(ctx, http.MethodPost, p.path("/tasks/events"), in, &out); err != nil {
		return nil, err
	}
	return out.Report(), nil
}
