package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Routes of iteration memory for agent loops (cairn.LoopService; cairn loop):
// each runs one loop operation on the project, with the policy and tiers
// the request gives (the caller's configuration), so that a server
// answers as the caller's own engine would.

// maxLoopResultBytes bounds a recorded iteration's body: the agent's
// result is read as `cairn loop record --result` reads it.
const maxLoopResultBytes = MaxCaptureBytes

func (s *Server) loopRecord(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.RecordJSON
	if err := readJSON(w, r, maxLoopResultBytes, &in); err != nil {
		return err
	}
	rec, err := p.svc.LoopRecord(r.Context(), in.Record(p.svc.Now()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.RecordedJSONOf(rec))
	return nil
}

func (s *Server) loopContext(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.ContextRequestJSON
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	req := in.Request(p.svc.Now())
	if !s.opts.RequireToken {
		// A server that needs no token answers this machine's user only:
		// the project's folder is theirs to read.
		req.Root = s.root(p.name)
	}
	req.Project = p.name
	c, err := p.svc.LoopContext(r.Context(), req)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ContextJSONOf(c))
	return nil
}

// loopPolicy reads the policy and tiers of a GET request's parameters.
func loopPolicy(q *query) (cairn.LoopPolicy, []string) {
	return cairn.LoopPolicy{
		EscalateAfter: q.integer("escalate_after", 0, 0, 1000),
		StuckAfter:    q.integer("stuck_after", 0, 0, 1000),
		ReviewAfter:   q.integer("review_after", 0, 0, 1000),
	}, q.list("tiers")
}

func (s *Server) loopModel(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	task := q.str("task")
	pol, tiers := loopPolicy(q)
	if q.err != nil {
		return q.err
	}
	if task == "" {
		q.bad("task", task, "give the task's id")
		return q.err
	}
	c, err := p.svc.LoopModel(r.Context(), task, tiers, pol)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ChoiceJSONOf(c))
	return nil
}

func (s *Server) loopStatus(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	pol, _ := loopPolicy(q)
	if q.err != nil {
		return q.err
	}
	states, err := p.svc.LoopStatus(r.Context(), pol)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.StatusJSONOf(states))
	return nil
}

func (s *Server) loopPrune(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.PruneJSON
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if in.ArchiveAfterHours < 0 || in.AggregateAfterHours < 0 {
		return cairn.Errorf(cairn.EINVALID, "archive_after_hours and aggregate_after_hours cannot be negative")
	}
	pr, err := p.svc.LoopPrune(r.Context(), in.Options(p.svc.Now()))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.PrunedJSONOf(pr))
	return nil
}
