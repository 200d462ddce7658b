package client

import (
	"context"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// The overview of projects, the review of one (httpapi's overview.go and
// review.go) and the administration of tokens.

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

// Projects implements cairn.OverviewService: the Project's own summary,
// if it has memories; bound to no project (Named("")), every project the
// server lists.
func (p *Project) Projects(ctx context.Context) ([]cairn.ProjectSummary, error) {
	ps, err := p.c.Projects(ctx)
	if err != nil || p.name == "" {
		return ps, err
	}
	for _, s := range ps {
		if s.Name == p.name {
			return []cairn.ProjectSummary{s}, nil
		}
	}
	return nil, nil
}

// CreatedByWeek implements cairn.OverviewService: the server counts, at
// the Project's clock.
func (p *Project) CreatedByWeek(ctx context.Context, weeks int) ([]cairn.CreatedPeriod, error) {
	if weeks < 1 || weeks > cairn.MaxCreatedWeeks {
		return nil, cairn.Errorf(cairn.EINVALID, "weeks must be from 1 to %d, not %d", cairn.MaxCreatedWeeks, weeks)
	}
	var out wire.CreatedOut
	if err := p.do(ctx, http.MethodGet, p.path("/stats/created?weeks="+strconv.Itoa(weeks)), nil, &out); err != nil {
		return nil, err
	}
	ps := make([]cairn.CreatedPeriod, 0, len(out.Periods))
	for _, o := range out.Periods {
		ps = append(ps, cairn.CreatedPeriod{Start: o.Start.Time(), End: o.End.Time(), ByType: o.ByType})
	}
	return ps, nil
}

// FindConflicts implements cairn.ConflictService: the server lists them,
// at the Project's clock.
func (p *Project) FindConflicts(ctx context.Context) ([]cairn.Conflict, error) {
	var out wire.ConflictsOut
	if err := p.do(ctx, http.MethodGet, p.path("/conflicts"), nil, &out); err != nil {
		return nil, err
	}
	cs := make([]cairn.Conflict, 0, len(out.Conflicts))
	for _, c := range out.Conflicts {
		cs = append(cs, cairn.Conflict{Old: c.Old.ToMemory(), New: c.New.ToMemory()})
	}
	return cs, nil
}

// RecallByValue implements cairn.ValueRecallService: the server recalls
// and records the use (never for a read-only token).
func (p *Project) RecallByValue(ctx context.Context, r cairn.ValueRecall) ([]*cairn.Memory, error) {
	in := wire.RecallIn{Types: r.Types, Agent: r.Agent, Limit: r.Limit, Session: r.Session, Record: r.Record}
	var out wire.MemoriesOut
	if err := p.do(ctx, http.MethodPost, p.path("/recall"), in, &out); err != nil {
		return nil, err
	}
	ms := make([]*cairn.Memory, 0, len(out.Memories))
	for _, m := range out.Memories {
		ms = append(ms, m.ToMemory())
	}
	return ms, nil
}

// CreateToken implements cairn.TokenService. A server answers it on its
// Unix socket only: over HTTP it is EFORBIDDEN.
func (p *Project) CreateToken(ctx context.Context, project, name string, readOnly bool) (string, *cairn.Token, error) {
	var out wire.NewToken
	if err := p.do(ctx, http.MethodPost, p.c.base+"/api/tokens", wire.TokenIn{Project: project, Name: name, ReadOnly: readOnly}, &out); err != nil {
		return "", nil, err
	}
	return out.Secret, out.Token.ToToken(), nil
}

// FindTokens implements cairn.TokenService (on a server's Unix socket
// only, as CreateToken).
func (p *Project) FindTokens(ctx context.Context) ([]*cairn.Token, error) {
	var out wire.TokensOut
	if err := p.do(ctx, http.MethodGet, p.c.base+"/api/tokens", nil, &out); err != nil {
		return nil, err
	}
	toks := make([]*cairn.Token, 0, len(out.Tokens))
	for _, t := range out.Tokens {
		toks = append(toks, t.ToToken())
	}
	return toks, nil
}

// RevokeToken implements cairn.TokenService (on a server's Unix socket
// only, as CreateToken).
func (p *Project) RevokeToken(ctx context.Context, id string) error {
	return p.do(ctx, http.MethodDelete, p.c.base+"/api/tokens/"+url.PathEscape(id), nil, nil)
}
