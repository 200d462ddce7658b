package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Routes that let a reader on another machine keep what it reads in the
// project: the cursors of transcripts (where the last ingest stopped;
// the transcripts are read where they are, and their memories added with
// POST /memories), and the use of memories a client showed.

// maxUses bounds the ids of one POST /uses.
const maxUses = 1000

// findIngestCursor answers GET /ingest/cursor?source=PATH: the cursor of
// the transcript in the project, offset 0 for one never read.
func (s *Server) findIngestCursor(w http.ResponseWriter, r *http.Request, p *project) error {
	source := r.URL.Query().Get("source") // as given: a path may end with a space
	c, err := p.svc.FindIngestCursor(r.Context(), p.name, source)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.IngestCursor{Source: c.Source, Offset: c.Offset, Pending: c.Pending})
	return nil
}

// putIngestCursor answers PUT /ingest/cursor: the cursor of the body's
// source, replacing the one the project had; the answer is the cursor.
func (s *Server) putIngestCursor(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.IngestCursor
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if err := p.svc.PutIngestCursor(r.Context(), p.name, cairn.IngestCursor{Source: in.Source, Offset: in.Offset, Pending: in.Pending}); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, in)
	return nil
}

// recordUses answers POST /uses: the memories a client's context showed
// to a session (seed 002's recall, say) have their use recorded, as a
// context's are. Ids of no memory of the project are skipped. A read-only
// token's uses are not recorded (they would raise confidence): the
// answer lists no ids.
func (s *Server) recordUses(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.Uses
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if len(in.IDs) > maxUses {
		return cairn.Errorf(cairn.EINVALID, "%d ids: at most %d a request", len(in.IDs), maxUses)
	}
	if err := s.checkClock(p); err != nil {
		return err
	}
	if p.token != nil && p.token.ReadOnly {
		in.IDs = nil
	} else if err := p.svc.RecordUse(r.Context(), in.IDs, in.Session); err != nil {
		return err
	}
	if in.IDs == nil {
		in.IDs = []string{}
	}
	writeJSON(w, http.StatusOK, in)
	return nil
}

// Limits of one POST /ingest: a reader sends a larger batch as several.
const (
	// MaxIngestMemories bounds the memories of one POST /ingest.
	MaxIngestMemories = 1000
	// MaxIngestBytes bounds the body of one POST /ingest.
	MaxIngestBytes = 8 << 20
)

// ingestBatch answers POST /ingest: the memories stored and the cursor put
// in one transaction (cairn.IngestBatchService); a memory refused as
// invalid is reported in its result and the others are stored.
func (s *Server) ingestBatch(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.IngestIn
	if err := readJSON(w, r, MaxIngestBytes, &in); err != nil {
		return err
	}
	if len(in.Memories) > MaxIngestMemories {
		return cairn.Errorf(cairn.EINVALID, "%d memories: at most %d a request", len(in.Memories), MaxIngestMemories)
	}
	b := cairn.IngestBatch{Memories: make([]*cairn.Memory, 0, len(in.Memories))}
	for _, in := range in.Memories {
		m, err := in.Memory(p.name)
		if err != nil {
			return err
		}
		b.Memories = append(b.Memories, m)
	}
	if in.Cursor != nil {
		b.Cursor = &cairn.IngestCursor{Source: in.Cursor.Source, Offset: in.Cursor.Offset, Pending: in.Cursor.Pending}
	}
	items, err := p.svc.IngestBatch(r.Context(), p.name, b)
	if err != nil {
		return err
	}
	out := wire.IngestOut{Results: make([]wire.IngestResult, 0, len(items)), Cursor: in.Cursor}
	for _, it := range items {
		if it.Err != nil {
			out.Results = append(out.Results, wire.IngestResult{Error: &wire.ErrorInfo{Code: cairn.ErrorCode(it.Err), Message: cairn.ErrorMessage(it.Err)}})
			continue
		}
		m := it.Result.Memory
		out.Results = append(out.Results, wire.IngestResult{Status: it.Result.Status, ID: m.ID, Type: m.Type, Title: m.Title})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
