package engine

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

var (
	_ cairn.IngestService      = (*Engine)(nil)
	_ cairn.IngestBatchService = (*Engine)(nil)
)

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

// IngestBatch implements cairn.IngestBatchService: the memories and the
// cursor are written in one transaction, each memory as AddMemory writes
// it (its index and activity entry with it).
func (e *Engine) IngestBatch(ctx context.Context, project string, b cairn.IngestBatch) ([]cairn.IngestItem, error) {
	if strings.TrimSpace(project) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the project of the ingest is empty")
	}
	if c := b.Cursor; c != nil {
		if err := checkCursorArgs(project, c.Source); err != nil {
			return nil, err
		}
		if c.Offset < 0 {
			return nil, cairn.Errorf(cairn.EINVALID, "the offset of the ingest cursor cannot be negative")
		}
	}
	now := e.Now()
	e, err := e.inProject(ctx, project)
	if err != nil {
		return nil, err
	}
	items := make([]cairn.IngestItem, len(b.Memories))
	ms := make([]*cairn.Memory, len(b.Memories))
	for i, m := range b.Memories {
		m = cloneMemory(m)
		m.Project = project
		if err := e.prepareNew(m, now); err != nil {
			items[i].Err = err
			continue
		}
		ms[i] = m
	}
	err = e.store.Update(ctx, func(tx cairn.Tx) error {
		for i, m := range ms {
			if m == nil {
				continue
			}
			// One index batch per memory, as AddMemory: the next memory's
			// duplicate check finds this one.
			ib := newIndexBatch()
			res, err := e.add(ctx, tx, ib, m, now, nil, true)
			if err != nil {
				return err
			}
			if a, ok := writeActivity(res, now, m.SessionID, addDetail(res)); ok {
				if err := tx.AppendActivity(ctx, []cairn.Activity{a}); err != nil {
					return err
				}
			}
			if err := ib.flush(ctx, tx); err != nil {
				return err
			}
			items[i] = cairn.IngestItem{Result: res}
		}
		if c := b.Cursor; c != nil {
			return tx.PutIngestState(ctx, ingestSource(project, c.Source), c.Offset, c.Pending, now)
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return items, nil
}
