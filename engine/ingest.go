package engine

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

var _ cairn.IngestService = (*Engine)(nil)

// ingestSource is where the cursor of a transcript read into project is
// kept in the ingest state's table: the project, a tab (which no project
// name holds), and the source. A transcript read into two projects has a
// cursor in each, and a token of one project reaches its own cursors only.
func ingestSource(project, source string) string { return "cairn-ingest:" + project + "\t" + source }

func checkCursorArgs(project, source string) error {
	if strings.TrimSpace(project) == "" {
		return cairn.Errorf(cairn.EINVALID, "the project of the ingest cursor is empty")
	}
	if strings.TrimSpace(source) == "" {
		return cairn.Errorf(cairn.EINVALID, "the source of the ingest cursor is empty: name the transcript")
	}
	return nil
}

// FindIngestCursor implements cairn.IngestService. A cursor written
// before cursors were kept per project (under the bare source) is
// returned for a project that has none of its own yet.
func (e *Engine) FindIngestCursor(ctx context.Context, project, source string) (*cairn.IngestCursor, error) {
	if err := checkCursorArgs(project, source); err != nil {
		return nil, err
	}
	c := &cairn.IngestCursor{Source: source}
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		for _, key := range []string{ingestSource(project, source), source} {
			off, err := tx.FindIngestOffset(ctx, key)
			if err != nil {
				return err
			}
			pending, err := tx.FindIngestPending(ctx, key)
			if err != nil {
				return err
			}
			if off != 0 || pending != "" {
				c.Offset, c.Pending = off, pending
				return nil
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return c, nil
}

// PutIngestCursor implements cairn.IngestService.
func (e *Engine) PutIngestCursor(ctx context.Context, project string, c cairn.IngestCursor) error {
	if err := checkCursorArgs(project, c.Source); err != nil {
		return err
	}
	if c.Offset < 0 {
		return cairn.Errorf(cairn.EINVALID, "the offset of the ingest cursor cannot be negative")
	}
	return e.store.Update(ctx, func(tx cairn.Tx) error {
		return tx.PutIngestState(ctx, ingestSource(project, c.Source), c.Offset, c.Pending, e.Now())
	})
}
