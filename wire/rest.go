package wire

import (
	"net/http"
	"strings"

	"github.com/cairn-dev/cairn"
)

// The bodies of the REST API's requests and answers (package httpapi
// reads and writes them, package client sends and reads them), and its
// headers.

// The headers of a search's answer that say how it was ranked
// (cairn.Retrieval): the mode asked for, the mode used, and why it fell
// back to lexical ranking, when it did.
const (
	RankingAskedHeader    = "Cairn-Ranking-Asked"
	RankingUsedHeader     = "Cairn-Ranking-Used"
	RankingFallbackHeader = "Cairn-Ranking-Fallback"
)

// ListOut is a page of memories and how many match in all.
type ListOut struct {
	Memories []*Memory `json:"memories"`
	Total    int       `json:"total"`
	// Stale lists the memories of the page that are possibly stale (a
	// file they refer to changed after they were written or verified);
	// absent when the server does not know the project's folder.
	Stale []string `json:"stale,omitempty"`
}

// AddIn is the body of POST /memories: a memory, and new_type to store
// a type one letter away from a known one.
type AddIn struct {
	MemoryIn
	NewType bool `json:"new_type,omitempty"`
	// Supersedes is the id of a memory the new one replaces, marked in
	// the same write.
	Supersedes string `json:"supersedes,omitempty"`
	// CreateOnly stores the memory only if no memory of the project has
	// its type and key (it needs a key): the check and the write are one
	// transaction, and a key taken is a conflict (cairn.Service's
	// CreateMemory).
	CreateOnly bool `json:"create_only,omitempty"`
}

// WriteOut is what a write did and the memory as stored.
type WriteOut struct {
	Status     string   `json:"status"`
	Memory     *Memory  `json:"memory"`
	Supersedes []string `json:"supersedes,omitempty"`
}

// UpdateIn is the body of PATCH /memories/{id} (package client sends
// it): only the fields given change. A time given as "" is cleared.
type UpdateIn struct {
	Type               *string  `json:"type,omitempty"`
	Key                *string  `json:"key,omitempty"`
	Title              *string  `json:"title,omitempty"`
	Content            *string  `json:"content,omitempty"`
	Tags               *List    `json:"tags,omitempty"`
	FileRefs           *List    `json:"file_refs,omitempty"`
	Confidence         *float64 `json:"confidence,omitempty"`
	Scope              *string  `json:"scope,omitempty"`
	Pinned             *bool    `json:"pinned,omitempty"`
	SupersededBy       *string  `json:"superseded_by,omitempty"`
	ExpiresAt          *Time    `json:"expires_at,omitempty"`
	VerifiedAt         *Time    `json:"verified_at,omitempty"`
	CreatedByAgent     *Text    `json:"created_by_agent,omitempty"`
	CreatedByHat       *Text    `json:"created_by_hat,omitempty"`
	CreatedByTaskID    *Text    `json:"created_by_task_id,omitempty"`
	CreatedBySessionID *Text    `json:"created_by_session_id,omitempty"`
	NewType            bool     `json:"new_type,omitempty"`
	// LowerConfidence lets confidence go below the stored one; without it
	// a lower confidence is refused.
	LowerConfidence bool `json:"lower_confidence,omitempty"`
}

// ContextIn is the body of POST /context (package client sends it). Its
// fields are left out when empty, so that a request says only what it
// sets.
type ContextIn struct {
	// Profile names the kind of block (cairn.ContextRequest.Profile): its tiers,
	// types and budget; "" is cairn.ProfileContext.
	Profile       string   `json:"profile,omitempty"`
	Prompt        string   `json:"prompt,omitempty"`
	Files         []string `json:"files,omitempty"`
	Hat           string   `json:"hat,omitempty"`
	Agent         string   `json:"agent,omitempty"`
	Task          string   `json:"task,omitempty"`
	Session       string   `json:"session,omitempty"`
	Budget        *int     `json:"budget,omitempty"`
	Limit         *int     `json:"limit,omitempty"`
	MaxChars      *int     `json:"max_chars,omitempty"`
	Format        string   `json:"format,omitempty"`
	Mode          string   `json:"mode,omitempty"`
	SearchMode    string   `json:"search_mode,omitempty"`
	DryRun        bool     `json:"dry_run,omitempty"`
	Tiers         []string `json:"tiers,omitempty"`
	Types         []string `json:"types,omitempty"`
	Index         bool     `json:"index,omitempty"`
	Explain       bool     `json:"explain,omitempty"`
	MaxJSONChars  int      `json:"max_json_chars,omitempty"`
	Conversations []string `json:"conversations,omitempty"`
	// Keywords are keyword phrases of the project's settings applied as
	// if the prompt held them (cairn.ContextRequest.Keywords).
	Keywords []string `json:"keywords,omitempty"`
}

// ContextOut is the answer of POST /context: the block and the ids of the
// memories it shows, in block order.
type ContextOut struct {
	Block   string   `json:"block"`
	IDs     []string `json:"ids"`
	Tokens  int      `json:"tokens"`
	Explain string   `json:"explain,omitempty"`
}

func SetRetrieval(h http.Header, r cairn.Retrieval) {
	oneLine := func(v string) string { // a fallback reason may quote an endpoint's message
		return strings.Map(func(c rune) rune {
			if c < ' ' || c == 0x7f {
				return ' '
			}
			return c
		}, v)
	}
	if r.Asked != "" {
		h.Set(RankingAskedHeader, r.Asked)
	}
	if r.Used != "" {
		h.Set(RankingUsedHeader, r.Used)
	}
	if r.Fallback != "" {
		h.Set(RankingFallbackHeader, oneLine(r.Fallback))
	}
}

// RetrievalOf reads the ranking headers of a search's answer.
func RetrievalOf(h http.Header) cairn.Retrieval {
	return cairn.Retrieval{Asked: h.Get(RankingAskedHeader), Used: h.Get(RankingUsedHeader), Fallback: h.Get(RankingFallbackHeader)}
}

// IngestIn is the body of POST /ingest: the memories one read of a
// transcript taught, in the order read (each as POST /memories takes it,
// without supersedes; the type is taken as given), and the cursor to put
// after them.
type IngestIn struct {
	Memories []MemoryIn    `json:"memories"`
	Cursor   *IngestCursor `json:"cursor,omitempty"`
}

// MemoryIn is a memory as POST /memories and POST /ingest take it: the
// export format's fields that a writer sets (those cairn sets itself,
// such as id, times and use_count, are not taken).
type MemoryIn struct {
	Type               string  `json:"type,omitempty"`
	Key                string  `json:"key,omitempty"`
	Title              string  `json:"title,omitempty"`
	Content            string  `json:"content"`
	Tags               List    `json:"tags,omitempty"`
	FileRefs           List    `json:"file_refs,omitempty"`
	Confidence         float64 `json:"confidence,omitempty"`
	Scope              string  `json:"scope,omitempty"`
	Pinned             bool    `json:"pinned,omitempty"`
	ExpiresAt          Time    `json:"expires_at,omitzero"`
	CreatedByAgent     Text    `json:"created_by_agent,omitempty"`
	CreatedByHat       Text    `json:"created_by_hat,omitempty"`
	CreatedByTaskID    Text    `json:"created_by_task_id,omitempty"`
	CreatedBySessionID Text    `json:"created_by_session_id,omitempty"`
	// Source is explicit (the default), automatic, extracted or imported.
	Source string `json:"source,omitempty"`
}

// MemoryInOf is m as a client sends it.
func MemoryInOf(m *cairn.Memory) MemoryIn {
	return MemoryIn{Type: m.Type, Key: m.Key, Title: m.Title, Content: m.Content, Tags: m.Tags, FileRefs: m.FileRefs,
		Confidence: m.Confidence, Scope: string(m.Scope), Pinned: m.Pinned, ExpiresAt: Time(m.ExpiresAt),
		CreatedByAgent: Text(m.Agent), CreatedByHat: Text(m.Hat), CreatedByTaskID: Text(m.TaskID),
		CreatedBySessionID: Text(m.SessionID), Source: string(m.Source)}
}

// IngestOut answers POST /ingest: one result per memory, in the body's
// order, and the cursor put (absent when none was given).
type IngestOut struct {
	Results []IngestResult `json:"results"`
	Cursor  *IngestCursor  `json:"cursor,omitempty"`
}

// LookupIn is the body of POST /lookup: a lookup by name (a file, an
// error, a command), answered here, where the memories are.
type LookupIn struct {
	Kind       string `json:"kind,omitempty"`
	Profile    string `json:"profile,omitempty"`
	Subject    string `json:"subject,omitempty"`
	Budget     int    `json:"budget,omitempty"`
	Limit      int    `json:"limit,omitempty"`
	Command    string `json:"command,omitempty"`
	Session    string `json:"session,omitempty"`
	ShownTimes int    `json:"shown_times,omitempty"`
	Exact      bool   `json:"exact,omitempty"`
	Record     bool   `json:"record,omitempty"`
}

// ProjectOut is one project of GET /api/projects.
type ProjectOut struct {
	Name         string `json:"name"`
	Memories     int    `json:"memories"`
	LastActivity Time   `json:"last_activity"`
}

// ProjectsOut is the answer of GET /api/projects.
type ProjectsOut struct {
	Projects []ProjectOut `json:"projects"`
}

// StatsOut is the answer of GET /stats: the counts, and the embedding
// coverage when the server embeds memories.
type StatsOut struct {
	Stats
	Vectors *VectorsOut `json:"vectors,omitempty"`
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

// VectorsOut is how many of the project's memories have a vector of the
// server's embeddings model.
type VectorsOut struct {
	Model    string `json:"model"`
	Memories int    `json:"memories"`
	Embedded int    `json:"embedded"`
}

// ErrorInfo is an error's code and message, as an error answer holds them.
type ErrorInfo struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Memory is the memory in describes in project; EINVALID for a
// confidence or scope out of range.
func (in MemoryIn) Memory(project string) (*cairn.Memory, error) {
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

// NowHeader is the request header that sets the clock of one request
// (RFC 3339), as the CLI's --now does for a command (httpapi.NowHeader
// says which requests a server takes it for).
const NowHeader = "Cairn-Now"
