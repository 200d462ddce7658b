package sqlite

import (
	"context"
	"database/sql"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

const (
	sqlFindProjectSettings = `SELECT document, source, fingerprint, folder, updated_at FROM project_settings WHERE project = ?`
	sqlPutProjectSettings  = `INSERT INTO project_settings(project, document, source, fingerprint, folder, updated_at) VALUES (?,?,?,?,?,?)
ON CONFLICT(project) DO UPDATE SET document=excluded.document, source=excluded.source, fingerprint=excluded.fingerprint,
folder=excluded.folder, updated_at=excluded.updated_at`
	sqlDeleteProjectSettings = `DELETE FROM project_settings WHERE project = ?`
)

// FindProjectSettings implements cairn.Tx.
func (t *Tx) FindProjectSettings(ctx context.Context, project string) (*cairn.StoredSettings, error) {
	s, err := t.stmt(ctx, sqlFindProjectSettings)
	if err != nil {
		return nil, err
	}
	out := &cairn.StoredSettings{Project: project}
	var at int64
	err = s.QueryRowContext(ctx, project).Scan(&out.Document, &out.Source, &out.Fingerprint, &out.Folder, &at)
	if err == sql.ErrNoRows {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "project %s has no stored settings", project)
	}
	if err != nil {
		return nil, translate(err, "find project settings")
	}
	out.UpdatedAt = storesql.FromMS(at)
	return out, nil
}

// PutProjectSettings implements cairn.Tx.
func (t *Tx) PutProjectSettings(ctx context.Context, s cairn.StoredSettings) error {
	if err := storesql.CheckSettings(s); err != nil {
		return err
	}
	_, err := t.exec(ctx, "put project settings", sqlPutProjectSettings, s.Project, s.Document, s.Source, s.Fingerprint, s.Folder, storesql.MS(s.UpdatedAt))
	return err
}

// DeleteProjectSettings implements cairn.Tx.
func (t *Tx) DeleteProjectSettings(ctx context.Context, project string) error {
	_, err := t.exec(ctx, "delete project settings", sqlDeleteProjectSettings, project)
	return err
}
