package client

import (
	"context"
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// The overview of projects (httpapi's overview.go).

// Projects lists the projects that have memories, by name, as
// cairn.OverviewService's Projects does: with a token, the token's
// project only.
func (c *Client) Projects(ctx context.Context) ([]cairn.ProjectSummary, error) {
	var out wire.ProjectsOut
	if err := c.Call(ctx, http.MethodGet, "/api/projects", nil, &out); err != nil {
		return nil, err
	}
	ps := make([]cairn.ProjectSummary, 0, len(out.Projects))
	for _, p := range out.Projects {
		ps = append(ps, cairn.ProjectSummary{Name: p.Name, Memories: p.Memories, LastActivity: p.LastActivity.Time()})
	}
	return ps, nil
}
