package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"

	"github.com/cairn-dev/cairn/wire"
)

// Routes that describe projects as a whole: the list of projects, and
// the memories created over time.

// projects lists the projects that have memories. A request with a
// token sees its token's project only; one without sees them all, on a
// server that needs no token.
func (s *Server) projects(w http.ResponseWriter, r *http.Request) {
	now, err := requestNow(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	tok, err := s.token(r)
	if err != nil {
		s.fail(w, r, err)
		return
	}
	name := ""
	if tok != nil {
		name = tok.Project
	}
	ps, err := s.opts.Service(name, now).Projects(r.Context())
	if err != nil {
		s.fail(w, r, err)
		return
	}
	out := wire.ProjectsOut{Projects: make([]wire.ProjectOut, 0, len(ps))}
	for _, p := range ps {
		if name != "" && p.Name != name {
			continue // whatever the service lists, a token sees its own project only
		}
		out.Projects = append(out.Projects, wire.ProjectOut{Name: p.Name, Memories: p.Memories, LastActivity: wire.Time(p.LastActivity)})
	}
	writeJSON(w, http.StatusOK, out)
}

// created counts the project's memories created in each of the last
// `weeks` weeks (default 12), by type (cairn.OverviewService's
// CreatedByWeek).
func (s *Server) created(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	n := q.integer("weeks", 12, 1, cairn.MaxCreatedWeeks)
	if q.err != nil {
		return q.err
	}
	ps, err := p.svc.CreatedByWeek(r.Context(), n)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.CreatedOf(ps))
	return nil
}

// root is the folder of project's files, "" when unknown.
func (s *Server) root(project string) string {
	if s.opts.Root == nil {
		return ""
	}
	return s.opts.Root(project)
}
