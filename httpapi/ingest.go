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
// context's are. Ids of no memory of the project are skipped.
func (s *Server) recordUses(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.Uses
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if len(in.IDs) > maxUses {
		return cairn.Errorf(cairn.EINVALID, "%d ids: at most %d a request", len(in.IDs), maxUses)
	}
	if err := p.svc.RecordUse(r.Context(), in.IDs, in.Session); err != nil {
		return err
	}
	if in.IDs == nil {
		in.IDs = []string{}
	}
	writeJSON(w, http.StatusOK, in)
	return nil
}
