package httpapi

import (
	"bufio"
	"iter"
	"net/http"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Routes of a project as a whole: import, export, stats, the activity
// log, and cleanup.

// importMemories reads the body as `cairn import` reads a file: JSON
// Lines, an export document or a JSON array, streamed (an export document
// or array is read whole, up to wire.MaxDocumentBytes), the whole body at
// most MaxImportBytes. Atomic unless skip_invalid=true. A record naming
// another project keeps it, as `cairn import` does, unless the request
// sends a token: a token opens one project, so such a record is refused.
// (Without a token, on a server that needs none, every project's routes
// are open to the caller anyway.)
func (s *Server) importMemories(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	skip := q.flag("skip_invalid", false)
	if q.err != nil {
		return q.err
	}
	body := http.MaxBytesReader(w, r.Body, MaxImportBytes)
	records := wire.Read(body)
	if r.Header.Get("Authorization") != "" { // checked by the route's guard: a token of p
		records = ownProject(records, p.name)
	}
	rep, err := p.svc.Import(r.Context(), records, cairn.ImportOptions{Project: p.name, SkipInvalid: skip})
	if err != nil {
		return err
	}
	if rep.Skipped == nil {
		rep.Skipped = []cairn.ImportProblem{}
	}
	writeJSON(w, http.StatusOK, rep)
	return nil
}

// ownProject marks the records of another project than name as invalid.
func ownProject(records iter.Seq[cairn.ImportRecord], name string) iter.Seq[cairn.ImportRecord] {
	return func(yield func(cairn.ImportRecord) bool) {
		for rec := range records {
			if rec.Err == nil && rec.Memory != nil && rec.Memory.Project != "" && rec.Memory.Project != name {
				rec = cairn.ImportRecord{Line: rec.Line, Err: cairn.Errorf(cairn.EINVALID,
					"the record is of project %q; this import is for project %q (leave project out, or import it there)", rec.Memory.Project, name)}
			}
			if !yield(rec) {
				return
			}
		}
	}
}

// export writes the project's memories as JSON Lines, oldest first, as
// they are encoded: `cairn export --format jsonl`.
func (s *Server) export(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	f := cairn.MemoryFilter{Project: p.name, IncludeGlobal: q.flag("global", false), Types: q.types("type"), Sort: cairn.SortCreatedAsc, SkipTotal: true}
	if q.err != nil {
		return q.err
	}
	mems, _, err := p.svc.FindMemories(r.Context(), f)
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/x-ndjson")
	w.Header().Set("Content-Disposition", `attachment; filename="`+safeFileName(p.name)+`.jsonl"`)
	bw := bufio.NewWriterSize(w, 64<<10)
	if err := wire.WriteJSONL(bw, mems); err != nil {
		// The status is sent: the client sees a cut stream. A client
		// that left is no failure of the server's.
		if !clientGone(r, err) {
			s.log.Warn("export cut short", "project", p.name, "err", err)
		}
		return nil
	}
	bw.Flush()
	return nil
}

// safeFileName keeps letters, digits, '.', '-' and '_' of a project name.
func safeFileName(name string) string {
	return strings.Map(func(r rune) rune {
		if r < 0x80 && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '-' || r == '_') {
			return r
		}
		return '_'
	}, name)
}

func (s *Server) stats(w http.ResponseWriter, r *http.Request, p *project) error {
	st, err := p.svc.Stats(r.Context(), p.name)
	if err != nil {
		return err
	}
	out := wire.StatsOut{Stats: wire.FromStats(st)}
	n, model, ok, err := p.svc.VectorCoverage(r.Context(), p.name)
	if err != nil {
		return err
	}
	if ok {
		out.Vectors = &wire.VectorsOut{Model: model, Memories: n.Memories, Embedded: n.Embedded}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// activityOut is a page of the activity log, newest first, and how many
// entries match in all.
type activityOut struct {
	Entries []wire.Activity `json:"entries"`
	Total   int             `json:"total"`
}

func (s *Server) activity(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	f := cairn.ActivityFilter{Project: p.name, MemoryID: q.str("memory"), SessionID: q.str("session"),
		Actions: q.list("action"), After: q.time("after"), Before: q.time("before"), Limit: q.integer("limit", 50, 0, 1<<30)}
	for _, a := range f.Actions {
		if !slices.Contains(cairn.Actions(), a) {
			q.bad("action", a, "give one of "+strings.Join(cairn.Actions(), ", "))
		}
	}
	if q.err != nil {
		return q.err
	}
	if f.MemoryID != "" {
		// A prefix names a stored memory; the id of a deleted memory is
		// taken as given.
		m, err := p.svc.FindMemoryByID(r.Context(), f.MemoryID)
		switch {
		case err == nil:
			f.MemoryID = m.ID
		case cairn.ErrorCode(err) != cairn.ENOTFOUND:
			return err
		}
	}
	acts, total, err := p.svc.FindActivity(r.Context(), f)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, activityOut{Entries: wire.FromActivity(acts), Total: total})
	return nil
}

// cleanup applies the lifecycle rules with apply=true, and otherwise says
// what it would do.
func (s *Server) cleanup(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	apply := q.flag("apply", false)
	if q.err != nil {
		return q.err
	}
	rep, err := p.svc.Maintain(r.Context(), p.name, apply)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.FromMaintenance(rep))
	return nil
}
