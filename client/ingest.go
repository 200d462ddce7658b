package client

import (
	"context"
	"io"
	"net/http"
	"net/url"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Transcript cursors, batches and the use of memories: what a program
// that reads on its own machine and stores on the server needs.

// FindIngestCursor returns where the last ingest of source into the
// project stopped, as cairn.IngestService says; project must be the
// Project's own (EINVALID otherwise).
func (p *Project) FindIngestCursor(ctx context.Context, project, source string) (*cairn.IngestCursor, error) {
	if project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	var out wire.IngestCursor
	if err := p.do(ctx, http.MethodGet, p.path("/ingest/cursor?source="+url.QueryEscape(source)), nil, &out); err != nil {
		return nil, err
	}
	return &cairn.IngestCursor{Source: out.Source, Offset: out.Offset, Pending: out.Pending}, nil
}

// PutIngestCursor records c as the cursor of c.Source in the project, as
// cairn.IngestService says; project must be the Project's own.
func (p *Project) PutIngestCursor(ctx context.Context, project string, c cairn.IngestCursor) error {
	if project != p.name {
		return cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	return p.do(ctx, http.MethodPut, p.path("/ingest/cursor"), wire.IngestCursor{Source: c.Source, Offset: c.Offset, Pending: c.Pending}, nil)
}

// A batch is sent in requests of at most ingestChunkMemories memories and
// about ingestChunkBytes of JSON: each is one transaction on the server,
// short enough for the client's timeout.
const (
	ingestChunkMemories = 250
	ingestChunkBytes    = 2 << 20
)

// IngestBatch stores b's memories in the project and puts its cursor, as
// cairn.IngestBatchService says, with POST /ingest; project must be the
// Project's own. A batch that fits one request (250 memories, about
// 2 MiB) is one transaction on the server. A larger one is sent in
// several, the cursor with the last: when one of them fails, the
// memories of those before it are stored and the cursor is not moved, so
// a reader that runs again reads the same lines, and what they teach
// folds into the memories stored (same key, or same content). The
// memories of the items carry their id, type, title and project.
func (p *Project) IngestBatch(ctx context.Context, project string, b cairn.IngestBatch) ([]cairn.IngestItem, error) {
	if project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, project)
	}
	items := make([]cairn.IngestItem, 0, len(b.Memories))
	ms := b.Memories
	for first := true; first || len(ms) > 0; first = false {
		var in wire.IngestIn
		size := 0
		for len(ms) > 0 && len(in.Memories) < ingestChunkMemories {
			m := ms[0]
			// Escaping makes JSON at most six times longer than its text.
			n := 256 + 6*(len(m.Content)+len(m.Title)+len(m.Key))
			for _, t := range m.Tags {
				n += 6 * len(t)
			}
			for _, f := range m.FileRefs {
				n += 6 * len(f)
			}
			if len(in.Memories) > 0 && size+n > ingestChunkBytes {
				break
			}
			size += n
			in.Memories = append(in.Memories, wire.MemoryInOf(m))
			ms = ms[1:]
		}
		if len(ms) == 0 && b.Cursor != nil {
			in.Cursor = &wire.IngestCursor{Source: b.Cursor.Source, Offset: b.Cursor.Offset, Pending: b.Cursor.Pending}
		}
		if in.Memories == nil {
			in.Memories = []wire.MemoryIn{}
		}
		var out wire.IngestOut
		if err := p.do(ctx, http.MethodPost, p.path("/ingest"), in, &out); err != nil {
			return nil, err
		}
		if len(out.Results) != len(in.Memories) {
			return nil, cairn.Errorf(cairn.EUNAVAILABLE, "the server answered %d results for %d memories", len(out.Results), len(in.Memories))
		}
		for _, r := range out.Results {
			if r.Error != nil {
				items = append(items, cairn.IngestItem{Err: cairn.Errorf(r.Error.Code, "%s", r.Error.Message)})
				continue
			}
			items = append(items, cairn.IngestItem{Result: &cairn.WriteResult{Status: r.Status,
				Memory: &cairn.Memory{ID: r.ID, Type: r.Type, Title: r.Title, Project: p.name}}})
		}
	}
	return items, nil
}

// maxUsesPerRequest is the most ids POST /uses takes.
const maxUsesPerRequest = 1000

// RecordUse records that memories were shown to session, as
// cairn.UseRecorder says: one request per 1000 ids.
func (p *Project) RecordUse(ctx context.Context, ids []string, session string) error {
	for len(ids) > 0 {
		n := min(len(ids), maxUsesPerRequest)
		if err := p.do(ctx, http.MethodPost, p.path("/uses"), wire.Uses{IDs: ids[:n], Session: session}, nil); err != nil {
			return err
		}
		ids = ids[n:]
	}
	return nil
}

func (b *readErr) Read(p []byte) (int, error) {
	n, err := b.r.Read(p)
	if err != nil && err != io.EOF {
		b.mu.Lock()
		if b.first == nil {
			b.first = err
		}
		b.mu.Unlock()
	}
	return n, err
}

func (b *readErr) err() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.first
}
