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

// IngestIn is the body of POST /ingest: the memories one read of a
// transcript taught, in the order read (each as POST /memories takes it,
// without supersedes; the type is taken as given), and the cursor to put
// after them.
type IngestIn struct {
	Memories []MemoryIn         `json:"memories"`
	Cursor   *wire.IngestCursor `json:"cursor,omitempty"`
}

// MemoryIn is a memory as POST /memories and POST /ingest take it: the
// export format's fields that a writer sets (those cairn sets itself,
// such as id, times and use_count, are not taken).
type MemoryIn struct {
	Type               string    `json:"type,omitempty"`
	Key                string    `json:"key,omitempty"`
	Title              string    `json:"title,omitempty"`
	Content            string    `json:"content"`
	Tags               wire.List `json:"tags,omitempty"`
	FileRefs           wire.List `json:"file_refs,omitempty"`
	Confidence         float64   `json:"confidence,omitempty"`
	Scope              string    `json:"scope,omitempty"`
	Pinned             bool      `json:"pinned,omitempty"`
	ExpiresAt          wire.Time `json:"expires_at,omitzero"`
	CreatedByAgent     wire.Text `json:"created_by_agent,omitempty"`
	CreatedByHat       wire.Text `json:"created_by_hat,omitempty"`
	CreatedByTaskID    wire.Text `json:"created_by_task_id,omitempty"`
	CreatedBySessionID wire.Text `json:"created_by_session_id,omitempty"`
	// Source is explicit (the default), automatic, extracted or imported.
	Source string `json:"source,omitempty"`
}

// MemoryInOf is m as a client sends it.
func MemoryInOf(m *cairn.Memory) MemoryIn {
	return MemoryIn{Type: m.Type, Key: m.Key, Title: m.Title, Content: m.Content, Tags: m.Tags, FileRefs: m.FileRefs,
		Confidence: m.Confidence, Scope: string(m.Scope), Pinned: m.Pinned, ExpiresAt: wire.Time(m.ExpiresAt),
		CreatedByAgent: wire.Text(m.Agent), CreatedByHat: wire.Text(m.Hat), CreatedByTaskID: wire.Text(m.TaskID),
		CreatedBySessionID: wire.Text(m.SessionID), Source: string(m.Source)}
}

// memory is the memory in describes in project; EINVALID for a
// confidence or scope out of range.
func (in MemoryIn) memory(project string) (*cairn.Memory, error) {
	if in.Confidence < 0 || in.Confidence > 1 {
		return nil, cairn.Errorf(cairn.EINVALID, "confidence %v is not valid: give a number above 0, up to 1", in.Confidence)
	}
	if in.Scope != "" && in.Scope != string(cairn.ScopeProject) && in.Scope != string(cairn.ScopeGlobal) {
		return nil, cairn.Errorf(cairn.EINVALID, "scope %q is not valid: give project or global", in.Scope)
	}
	source := cairn.SourceExplicit
	if in.Source != "" {
		source = cairn.Source(in.Source)
	}
	return &cairn.Memory{
		Project: project, Scope: cairn.Scope(in.Scope), Type: in.Type, Key: in.Key, Title: in.Title, Content: in.Content,
		Tags: in.Tags, FileRefs: in.FileRefs, Confidence: in.Confidence, Source: source, Pinned: in.Pinned,
		ExpiresAt: in.ExpiresAt.Time(), Agent: string(in.CreatedByAgent), Hat: string(in.CreatedByHat),
		TaskID: string(in.CreatedByTaskID), SessionID: string(in.CreatedBySessionID),
	}, nil
}

// IngestOut answers POST /ingest: one result per memory, in the body's
// order, and the cursor put (absent when none was given).
type IngestOut struct {
	Results []IngestResult     `json:"results"`
	Cursor  *wire.IngestCursor `json:"cursor,omitempty"`
}

// IngestResult is what became of one memory: its status, id, type and
// title when it was stored, else the error that refused it.
type IngestResult struct {
	Status string     `json:"status,omitempty"`
	ID     string     `json:"id,omitempty"`
	Type   string     `json:"type,omitempty"`
	Title  string     `json:"title,omitempty"`
	Error  *ErrorInfo `json:"error,omitempty"`
}

// ErrorInfo is an error's code and message, as an error answer holds them.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// ingestBatch answers POST /ingest: the memories stored and the cursor put
// in one transaction (cairn.IngestBatchService); a memory refused as
// invalid is reported in its result and the others are stored.
func (s *Server) ingestBatch(w http.ResponseWriter, r *http.Request, p *project) error {
	var in IngestIn
	if err := readJSON(w, r, MaxIngestBytes, &in); err != nil {
		return err
	}
	if len(in.Memories) > MaxIngestMemories {
		return cairn.Errorf(cairn.EINVALID, "%d memories: at most %d a request", len(in.Memories), MaxIngestMemories)
	}
	b := cairn.IngestBatch{Memories: make([]*cairn.Memory, 0, len(in.Memories))}
	for _, in := range in.Memories {
		m, err := in.memory(p.name)
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
	out := IngestOut{Results: make([]IngestResult, 0, len(items)), Cursor: in.Cursor}
	for _, it := range items {
		if it.Err != nil {
			out.Results = append(out.Results, IngestResult{Error: &ErrorInfo{Code: cairn.ErrorCode(it.Err), Message: cairn.ErrorMessage(it.Err)}})
			continue
		}
		m := it.Result.Memory
		out.Results = append(out.Results, IngestResult{Status: it.Result.Status, ID: m.ID, Type: m.Type, Title: m.Title})
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
