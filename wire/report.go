package wire

import (
	"math"

	"github.com/cairn-dev/cairn"
)

// The JSON forms of what commands report besides memories: search hits,
// cleanup reports, activity entries and stats. `cairn … --json` and the
// HTTP API write the same objects.

// Hit is a search hit: the memory's fields plus its score.
type Hit struct {
	Score     float64     `json:"score"`
	Relevance float64     `json:"relevance"`
	Salience  float64     `json:"salience"`
	Explain   *HitExplain `json:"explain,omitempty"`
	*Memory
}

// HitExplain is every part of a hit's score (see cairn.Hit).
type HitExplain struct {
	BM25       float64 `json:"bm25"`
	Coverage   float64 `json:"coverage"`
	Match      float64 `json:"match"`
	Strength   float64 `json:"strength"`
	Lent       float64 `json:"lent,omitempty"`
	LentBy     string  `json:"lent_by,omitempty"`
	DateFactor float64 `json:"date_factor"`
	// Typicality: a prompt's, of the project against the database's
	// other projects (see cairn.HitExplain); left out when not measured.
	Typicality     float64 `json:"typicality,omitempty"`
	SalienceFactor float64 `json:"salience_factor"`
	// In the vector and hybrid modes: the places in each ranking (0: not
	// in it), the cosine similarity and the fused score.
	LexicalRank int     `json:"lexical_rank,omitempty"`
	VectorRank  int     `json:"vector_rank,omitempty"`
	Similarity  float64 `json:"similarity,omitempty"`
	Fused       float64 `json:"fused,omitempty"`
}

func round4(f float64) float64 { return math.Round(f*10000) / 10000 }

// FromHit converts a hit to its JSON form; explain adds the parts of its
// score, when the hit has them (cairn.Query.Explain).
func FromHit(h cairn.Hit, explain bool) Hit {
	out := Hit{Score: round4(h.Score), Relevance: round4(h.Relevance), Salience: round4(h.Salience), Memory: FromMemory(h.Memory)}
	if x := h.Explain; explain && x != nil {
		out.Explain = &HitExplain{BM25: round4(x.Lexical), Coverage: round4(x.Coverage), Match: round4(x.Match),
			Strength: round4(h.Strength), Lent: round4(x.Lent), LentBy: x.LentBy, DateFactor: round4(x.DateFactor),
			Typicality:     round4(x.Typicality),
			SalienceFactor: round4(x.SalienceFactor),
			LexicalRank:    x.LexicalRank, VectorRank: x.VectorRank, Similarity: round4(x.Similarity), Fused: round4(x.Fused)}
	}
	return out
}

// FromHitExact is FromHit with every part of the score as computed, not
// rounded: for a client that prints or ranks the figures itself. The
// explanation carries the hit's Strength: it is there whenever the hit
// has one.
func FromHitExact(h cairn.Hit) Hit {
	out := Hit{Score: h.Score, Relevance: h.Relevance, Salience: h.Salience, Memory: FromMemory(h.Memory)}
	out.Memory.Confidence = h.Memory.Confidence
	if x := h.Explain; x != nil {
		out.Explain = &HitExplain{BM25: x.Lexical, Coverage: x.Coverage, Match: x.Match, Strength: h.Strength,
			Lent: x.Lent, LentBy: x.LentBy, DateFactor: x.DateFactor, Typicality: x.Typicality, SalienceFactor: x.SalienceFactor,
			LexicalRank: x.LexicalRank, VectorRank: x.VectorRank, Similarity: x.Similarity, Fused: x.Fused}
	}
	return out
}

// ToHit converts the JSON form back to a hit; its Strength and the parts
// of its score are there only when the JSON has its explanation.
func (w Hit) ToHit() cairn.Hit {
	h := cairn.Hit{Score: w.Score, Relevance: w.Relevance, Salience: w.Salience}
	if w.Memory != nil {
		h.Memory = w.Memory.ToMemory()
	}
	if e := w.Explain; e != nil {
		h.Strength = e.Strength
		h.Explain = &cairn.HitExplain{Lexical: e.BM25, Coverage: e.Coverage, Match: e.Match, Lent: e.Lent, LentBy: e.LentBy,
			DateFactor: e.DateFactor, Typicality: e.Typicality, LexicalRank: e.LexicalRank, VectorRank: e.VectorRank, Similarity: e.Similarity, Fused: e.Fused,
			SalienceFactor: e.SalienceFactor}
	}
	return h
}

// QueryExplanation is the answer of GET /search/terms: how the server
// weighs a query's terms and scores its matches (cairn.QueryExplanation).
type QueryExplanation struct {
	Terms []QueryTerm `json:"terms"`
	BM25  struct {
		K1    float64 `json:"k1"`
		B     float64 `json:"b"`
		Pivot float64 `json:"pivot"`
	} `json:"bm25"`
	Coverage       float64 `json:"coverage"`
	NeighbourShare float64 `json:"neighbour_share"`
	NeighbourCap   float64 `json:"neighbour_cap"`
}

// QueryTerm is one term of a QueryExplanation.
type QueryTerm struct {
	Term   string  `json:"term"`
	Weight float64 `json:"weight"`
}

// QueryExplanationOf is the JSON form of x.
func QueryExplanationOf(x *cairn.QueryExplanation) QueryExplanation {
	out := QueryExplanation{Terms: make([]QueryTerm, 0, len(x.Terms)), Coverage: x.Coverage,
		NeighbourShare: x.NeighbourShare, NeighbourCap: x.NeighbourCap}
	out.BM25.K1, out.BM25.B, out.BM25.Pivot = x.K1, x.B, x.Pivot
	for _, t := range x.Terms {
		out.Terms = append(out.Terms, QueryTerm{Term: t.Term, Weight: t.Weight})
	}
	return out
}

// Explanation is the explanation w describes.
func (w QueryExplanation) Explanation() *cairn.QueryExplanation {
	x := &cairn.QueryExplanation{K1: w.BM25.K1, B: w.BM25.B, Pivot: w.BM25.Pivot, Coverage: w.Coverage,
		NeighbourShare: w.NeighbourShare, NeighbourCap: w.NeighbourCap}
	for _, t := range w.Terms {
		x.Terms = append(x.Terms, cairn.QueryTerm{Term: t.Term, Weight: t.Weight})
	}
	return x
}

// CleanupItem is one memory a cleanup expires, deletes or decays.
type CleanupItem struct {
	ID            string   `json:"id"`
	Type          string   `json:"type"`
	Title         string   `json:"title"`
	Action        string   `json:"action"`
	Reason        string   `json:"reason"`
	Confidence    float64  `json:"confidence"`
	NewConfidence *float64 `json:"new_confidence,omitempty"` // decays only
	Weeks         int      `json:"weeks,omitempty"`
}

// CleanupReport is what a cleanup did, or would do when Applied is false.
type CleanupReport struct {
	Project string        `json:"project"`
	At      Time          `json:"at,omitzero"`
	Applied bool          `json:"applied"`
	Expired int           `json:"expired"`
	Deleted int           `json:"deleted"`
	Decayed int           `json:"decayed"`
	Pinned  int           `json:"pinned_kept"`
	Items   []CleanupItem `json:"items"`
}

// FromMaintenance converts a cleanup report to its JSON form.
func FromMaintenance(rep *cairn.MaintenanceReport) CleanupReport {
	out := CleanupReport{Project: rep.Project, At: Time(rep.At), Applied: rep.Applied,
		Expired: rep.Expired, Deleted: rep.Deleted, Decayed: rep.Decayed, Pinned: rep.Pinned,
		Items: make([]CleanupItem, 0, len(rep.Items))}
	for _, it := range rep.Items {
		ci := CleanupItem{ID: it.MemoryID, Type: it.Type, Title: it.Title, Action: it.Action,
			Reason: it.Reason, Confidence: round(it.Confidence), Weeks: it.Weeks}
		if it.Action == cairn.ActionDecayed {
			c := round(it.NewConfidence)
			ci.NewConfidence = &c
		}
		out.Items = append(out.Items, ci)
	}
	return out
}

// Activity is an entry of the activity log.
type Activity struct {
	ID        int64  `json:"id"`
	At        Time   `json:"at"`
	Project   string `json:"project"`
	MemoryID  string `json:"memory_id"`
	Action    string `json:"action"`
	SessionID string `json:"session_id,omitempty"`
	Detail    string `json:"detail,omitempty"`
}

// FromActivity converts activity entries to their JSON form.
func FromActivity(acts []cairn.Activity) []Activity {
	out := make([]Activity, 0, len(acts))
	for _, a := range acts {
		out = append(out, Activity{ID: a.ID, At: Time(a.At), Project: a.Project, MemoryID: a.MemoryID,
			Action: a.Action, SessionID: a.SessionID, Detail: a.Detail})
	}
	return out
}

// Stats are a project's counts.
type Stats struct {
	Project       string         `json:"project"`
	Total         int            `json:"total"`
	ByType        map[string]int `json:"by_type"`
	GlobalTotal   int            `json:"global_total"`
	IndexDocs     int64          `json:"index_docs"`
	IndexDeadDocs int64          `json:"index_dead_docs"`
}

// FromStats converts stats to their JSON form.
func FromStats(st *cairn.Stats) Stats {
	by := st.ByType
	if by == nil {
		by = map[string]int{}
	}
	return Stats{Project: st.Project, Total: st.Total, ByType: by, GlobalTotal: st.GlobalTotal,
		IndexDocs: st.IndexDocs, IndexDeadDocs: st.DeadDocs}
}

// CaptureIn is the body of POST /capture: an agent's output and who wrote
// it (cairn.CaptureRequest).
type CaptureIn struct {
	Text          string `json:"text"`
	Hat           string `json:"hat"`
	Agent         string `json:"agent"`
	Task          string `json:"task"`
	Session       string `json:"session"`
	HatTransition string `json:"hat_transition,omitempty"`
}

// TaskEventIn is the body of POST /tasks/events: an event of a task
// (cairn.TaskEvent).
type TaskEventIn struct {
	Event   string   `json:"event"`
	Task    string   `json:"task,omitempty"`
	Title   string   `json:"title,omitempty"`
	Text    string   `json:"text,omitempty"`
	Files   []string `json:"files,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Session string   `json:"session,omitempty"`
	Hat     string   `json:"hat,omitempty"`
}

// TaskReport is the answer of POST /tasks/events: the event's memory,
// what its summary taught and signalled, and the lines it could not use.
type TaskReport struct {
	Event    Captured         `json:"event"`
	Stored   []Captured       `json:"stored"`
	Problems []CaptureProblem `json:"problems"`
}

// TaskReportOf is the JSON form of r.
func TaskReportOf(r *cairn.TaskReport) TaskReport {
	c := CaptureReportOf(&cairn.CaptureReport{Stored: append([]cairn.Captured{r.Event}, r.Stored...), Problems: r.Problems})
	return TaskReport{Event: c.Stored[0], Stored: c.Stored[1:], Problems: c.Problems}
}

// Report is the report r describes.
func (r TaskReport) Report() *cairn.TaskReport {
	c := CaptureReport{Stored: append([]Captured{r.Event}, r.Stored...), Problems: r.Problems}.Report()
	return &cairn.TaskReport{Event: c.Stored[0], Stored: c.Stored[1:], Problems: c.Problems}
}

// CaptureReport is what a capture stored, and the signals it could not
// read or store, by line.
type CaptureReport struct {
	Stored   []Captured       `json:"stored"`
	Problems []CaptureProblem `json:"problems"`
}

// Captured is one memory a capture stored.
type Captured struct {
	ID     string `json:"id"`
	Status string `json:"status"`
	Kind   string `json:"kind"`
	Type   string `json:"type"`
	Title  string `json:"title"`
	Line   int    `json:"line"`
}

// CaptureProblem is a signal that was not stored: a line that could not
// be read as one, or (refused) one the service refused to store.
type CaptureProblem struct {
	Line    int    `json:"line"`
	Reason  string `json:"reason"`
	Text    string `json:"text"`
	Refused bool   `json:"refused,omitempty"`
}

// CaptureReportOf is the JSON form of r.
func CaptureReportOf(r *cairn.CaptureReport) CaptureReport {
	out := CaptureReport{Stored: make([]Captured, 0, len(r.Stored)), Problems: make([]CaptureProblem, 0, len(r.Problems))}
	for _, c := range r.Stored {
		out.Stored = append(out.Stored, Captured{ID: c.ID, Status: c.Status, Kind: c.Kind, Type: c.Type, Title: c.Title, Line: c.Line})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, CaptureProblem{Line: p.Line, Reason: p.Reason, Text: p.Text, Refused: p.Refused})
	}
	return out
}

// Report is the report r describes.
func (r CaptureReport) Report() *cairn.CaptureReport {
	out := &cairn.CaptureReport{Stored: make([]cairn.Captured, 0, len(r.Stored)), Problems: make([]cairn.CaptureProblem, 0, len(r.Problems))}
	for _, c := range r.Stored {
		out.Stored = append(out.Stored, cairn.Captured{ID: c.ID, Status: c.Status, Kind: c.Kind, Type: c.Type, Title: c.Title, Line: c.Line})
	}
	for _, p := range r.Problems {
		out.Problems = append(out.Problems, cairn.CaptureProblem{Line: p.Line, Reason: p.Reason, Text: p.Text, Refused: p.Refused})
	}
	return out
}

// IngestCursor is where the reading of a transcript into a project
// stopped (cairn.IngestCursor).
type IngestCursor struct {
	Source  string `json:"source"`
	Offset  int64  `json:"offset"`
	Pending string `json:"pending"`
}

// Uses are memories a context showed to a session, whose use is to be
// recorded.
type Uses struct {
	IDs     []string `json:"ids"`
	Session string   `json:"session"`
}
