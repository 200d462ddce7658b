package client

import (
	"context"
	"net/http"

	"github.com/cairn-dev/cairn"
)

// ProjectSettings implements cairn.SettingsService: the settings the
// server stores for project (the client's own project when "").
func (p *Project) ProjectSettings(ctx context.Context, project string) (*cairn.ProjectSettings, error) {
	var out cairn.ProjectSettings
	q := p.named(project)
	if err := q.do(ctx, http.MethodGet, q.path("/settings"), nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// SetProjectSettings implements cairn.SettingsService; the server checks
// the settings as a configuration file's are checked (EINVALID).
func (p *Project) SetProjectSettings(ctx context.Context, project string, ps *cairn.ProjectSettings) error {
	if ps == nil || ps.Settings == nil {
		return cairn.Errorf(cairn.EINVALID, "no settings to store for project %s", project)
	}
	q := p.named(project)
	return q.do(ctx, http.MethodPut, q.path("/settings"), ps, nil)
}

// DeleteProjectSettings implements cairn.SettingsService.
func (p *Project) DeleteProjectSettings(ctx context.Context, project string) error {
	q := p.named(project)
	return q.do(ctx, http.MethodDelete, q.path("/settings"), nil, nil)
}

// named is p, or p bound to project when it names another.
func (p *Project) named(project string) *Project {
	if project == "" || project == p.name {
		return p
	}
	return p.bound(project)
}
