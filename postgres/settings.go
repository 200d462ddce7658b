package postgres

import (
	"context"
	"errors"

	"github.com/jackc/pgx/v5"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

// FindProjectSettings implements cairn.Tx.
func (t *Tx) FindProjectSettings(ctx context.Context, project string) (*cairn.StoredSettings, error) {
	out := &cairn.StoredSettings{Project: project}
	var at int64
	err := t.tx.QueryRow(ctx, `SELECT document, source, fingerprint, folder, updated_at FROM project_settings WHERE project=$1`, project).
		Scan(&out.Document, &out.Source, &out.Fingerprint, &out.Folder, &at)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "project %s has no stored settings", project)
	}
	if err != nil {
		return nil, translate(err, "find project settings")
	}
	out.UpdatedAt = storesql.FromMS(at)
	return out, nil
}

// PutProjectSettings implements cairn.Tx: the row's key serialises it, the
// last commit wins.
func (t *Tx) PutProjectSettings(ctx context.Context, s cairn.StoredSettings) error {
	if err := storesql.CheckSettings(s); err != nil {
		return err
	}
	_, err := t.exec(ctx, "put project settings", `INSERT INTO project_settings(project, document, source, fingerprint, folder, updated_at) VALUES ($1,$2,$3,$4,$5,$6)
	ON CONFLICT(project) DO UPDATE SET document=excluded.document, source=excluded.source, fingerprint=excluded.fingerprint,
	folder=excluded.folder, updated_at=excluded.updated_at`,
		s.Project, s.Document, s.Source, s.Fingerprint, s.Folder, storesql.MS(s.UpdatedAt))
	return err
}

// DeleteProjectSettings implements cairn.Tx.
func (t *Tx) DeleteProjectSettings(ctx context.Context, project string) error {
	_, err := t.exec(ctx, "delete project settings", `DELETE FROM project_settings WHERE project=$1`, project)
	return err
}
