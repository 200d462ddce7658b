package httpapi

import (
	"net/http"
	"time"

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

// createdOut is the answer of GET /stats/created: the memories created in
// each of the last weeks, by type, oldest week first.
type createdOut struct {
	Periods []periodOut `json:"periods"`
}

// periodOut is one period of createdOut.
type periodOut struct {
	Start  wire.Time      `json:"start"`
	End    wire.Time      `json:"end"`
	ByType map[string]int `json:"by_type"`
}

const week = 7 * 24 * time.Hour

// created counts the project's memories created in each of the last
// `weeks` weeks (default 12, at most 520), by type. Weeks start on
// Monday, 00:00 UTC; the last one holds now.
func (s *Server) created(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	n := q.integer("weeks", 12, 1, 520)
	if q.err != nil {
		return q.err
	}
	now := p.svc.Now().UTC()
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, time.UTC)
	monday := day.AddDate(0, 0, -((int(day.Weekday()) + 6) % 7))
	from := monday.AddDate(0, 0, -7*(n-1))
	counts, err := p.svc.CountCreated(r.Context(), p.name, from, week)
	if err != nil {
		return err
	}
	out := createdOut{Periods: make([]periodOut, n)}
	for i := range out.Periods {
		start := from.AddDate(0, 0, 7*i)
		out.Periods[i] = periodOut{Start: wire.Time(start), End: wire.Time(start.AddDate(0, 0, 7)), ByType: map[string]int{}}
	}
	for _, c := range counts {
		if c.Period >= 0 && c.Period < n {
			out.Periods[c.Period].ByType[c.Type] += c.Count
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// root is the folder of project's files, "" when unknown.
func (s *Server) root(project string) string {
	if s.opts.Root == nil {
		return ""
	}
	return s.opts.Root(project)
}
