package client

import (
	"context"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Transcript cursors, the use of memories, and import: what a program
// that reads on its own machine and stores on the server needs.

var (
	_ cairn.IngestService = (*Project)(nil)
	_ cairn.UseRecorder   = (*Project)(nil)
)

// Named returns the service of the project name on the same server, at
// the same clock.
func (p *Project) Named(name string) *Project {
	q := *p
	q.name = name
	return &q
}

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

// ImportStream imports what r holds, as `cairn import` reads a file (JSON
// Lines, an export document, a JSON array), streamed to the server in one
// request: one transaction there, atomic unless opts.SkipInvalid, the
// lines of problems those of r. opts.Project is the Project's own. The
// request waits for the server as long as ctx lets it (an import of a
// million memories takes a while), not the client's timeout. An error of
// reading r is returned as it is; nothing is stored then.
func (p *Project) ImportStream(ctx context.Context, r io.Reader, opts cairn.ImportOptions) (*cairn.ImportReport, error) {
	if opts.Project != "" && opts.Project != p.name {
		return nil, cairn.Errorf(cairn.EINVALID, "this client serves project %q, not %q", p.name, opts.Project)
	}
	body := &readErr{r: r}
	var out cairn.ImportReport
	err := p.patient().do(ctx, http.MethodPost, p.path("/import?skip_invalid="+strconv.FormatBool(opts.SkipInvalid)), body, &out)
	if rerr := body.err(); rerr != nil {
		return nil, rerr // the request failed for it
	}
	if err != nil {
		return nil, err
	}
	return &out, nil
}

// readErr keeps the first error of reading r other than io.EOF: a
// transport that fails for it says only that the request failed.
type readErr struct {
	r     io.Reader
	mu    sync.Mutex
	first error
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
