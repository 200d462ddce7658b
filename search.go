package cairn

import (
	"math"
	"time"
)

// Query is a search of one project's memories (and the global-scope ones).
// Zero fields do not filter.
type Query struct {
	Project string // required
	Text    string // the user's words; never interpreted as query syntax
	Limit   int    // at most this many hits; 0 means DefaultLimit
	Types   []string
	Tags    []string // all of
	After   time.Time
	Before  time.Time
	// ExcludeSession leaves out memories written in that session, so that a
	// session is not fed back what it just wrote (seed 000).
	ExcludeSession string
	// Agent, when set, keeps the memories that agent wrote (Memory.Agent)
	// only: seed 002's agent-scoped recall.
	Agent string
	// ExcludeSuperseded leaves out memories replaced by newer ones.
	ExcludeSuperseded bool
	// NoGlobal leaves out global-scope memories of other projects.
	NoGlobal bool
	// NoFeedback ranks by the query's own words only (no pseudo-relevance
	// feedback): fewer, closer matches, for context injection.
	NoFeedback bool
	// Prompt says that Text is a prompt written to an agent, not a search
	// or a tool's output: its filler words (greetings, "lets continue",
	// "ultrathink"; see package lexical, IsFiller) count for nothing in
	// Hit.Strength, so that how a prompt is put does not push its
	// memories below a relevance floor.
	Prompt bool
	Now    time.Time // the clock for recency; zero means the engine's clock
	// Mode is how to rank: ModeLexical, ModeVector or ModeHybrid; ""
	// means the engine's default (its configured mode, hybrid unless
	// set otherwise, when it has an embeddings endpoint; else lexical).
	Mode string
	// Explain asks for each hit's Explain.
	Explain bool
}

// Search modes (Query.Mode).
const (
	ModeLexical = "lexical" // BM25 over the memories' words only
	ModeVector  = "vector"  // similarity of embeddings only
	ModeHybrid  = "hybrid"  // both rankings fused by reciprocal rank
)

// Retrieval says how a search was ranked: the mode asked for, the mode
// used, and when they differ why (the endpoint was slow, down or over
// its budget, or no memory has a vector yet): vectors never stand in the
// way of an answer.
type Retrieval struct {
	Asked    string
	Used     string
	Fallback string // why Used is not Asked; "" when it is
}

// ExplainLine says how a search was ranked, for an explanation (--explain):
// "" when no mode was asked (lexical ranking without an embeddings
// endpoint), else one line.
func (r Retrieval) ExplainLine() string {
	switch {
	case r.Asked == "":
		return ""
	case r.Fallback != "":
		return "ranking: " + r.Used + " (asked " + r.Asked + "; " + r.Fallback + ")\n"
	}
	return "ranking: " + r.Used + "\n"
}

// QueryExplanation is how a search weighs a query's terms and scores its
// matches, for a person reading why hits rank where they do (`cairn
// search --explain`), by the engine that ranks them.
type QueryExplanation struct {
	Terms []QueryTerm // the terms scored, in first-seen order
	// K1 and B are BM25's parameters; Pivot is the length, in terms,
	// that a memory's length is measured against.
	K1, B, Pivot float64
	// Coverage is the share of a match that depends on how much of the
	// query's weight the memory holds.
	Coverage float64
	// NeighbourShare is the share of a strong match lent to a neighbour
	// in its session or task; NeighbourCap bounds what a neighbour longer
	// than Pivot reaches with its own match, as a share of its lender's
	// (0: no bound).
	NeighbourShare, NeighbourCap float64
}

// QueryTerm is one term a search scores and its weight (every word of a
// query weighs 1 in all, shared by the terms it gives).
type QueryTerm struct {
	Term   string
	Weight float64
}

// DefaultLimit is the number of hits a Query returns when Limit is 0.
const DefaultLimit = 10

// MaxLimit is the largest Limit a Query may ask for.
const MaxLimit = 1000

// MaxQueryBytes is the longest query text a transport takes for a search
// (REST q, MCP search): a query is words to look for, and ranking a
// pasted megabyte costs seconds of a shared server's CPU.
const MaxQueryBytes = 8 << 10

// Hit is one search result. Score orders hits (higher is better):
//
//	Score = Relevance × rank.Factor(Salience)
//
// Explain says how Relevance was made, when the query asked for it.
type Hit struct {
	Memory    *Memory
	Score     float64 // what hits are ordered by
	Relevance float64 // the match relative to the best hit's, in (0, 1]
	Salience  float64 // the memory's standing: confidence, recency, use, type
	// Strength is the share of the query's idf-weighted weight that the
	// memory's own terms hold, in [0, 1]: unlike Relevance it means the
	// same for every query, so that a floor can tell a real match from the
	// best of weak ones. 0 for a memory found only through a neighbour.
	// In the vector and hybrid modes it is the larger of the lexical one
	// and the similarity's (see package engine, vectorStrength).
	Strength float64
	// Explain is how the hit was scored, when Query.Explain asked for it;
	// nil otherwise.
	Explain *HitExplain
}

// HitExplain is every part of a hit's score, for a person reading why it
// ranks where it does (`cairn search --explain`):
//
//	Match     = Lexical × (1 − s + s × Coverage)      s: the engine's coverage share
//	Relevance = (Match + Lent) × DateFactor, relative to the best hit's
type HitExplain struct {
	Lexical float64 // BM25 of the query's words, each word weighted once
	// Coverage is the share of the query's weight that the memory's terms
	// hold, in [0, 1].
	Coverage float64
	Match    float64 // Lexical adjusted by Coverage
	// Lent is the share of a strong match's score that this memory gets
	// as its neighbour in the same session or task; LentBy is that match.
	Lent   float64
	LentBy string
	// DateFactor is above 1 when the memory was created in a period that
	// the query names ("yesterday", "in May 2023"), else 1.
	DateFactor float64
	// Typicality is, for a prompt (Query.Prompt) in a database that holds
	// other projects, how much more typical the prompt's words are of the
	// project's memories than of the other projects' memories: a
	// log-likelihood ratio summed over its words, 0 when not measured.
	// Below 0 the prompt reads as another project's. A measured prompt's
	// hits of the project have their Strength multiplied by
	// PromptBelongs(Typicality).
	Typicality float64
	// In the vector and hybrid modes: the hit's place in the lexical and
	// the vector ranking (1 is first; 0: not in it), the cosine
	// similarity of its vector with the query's, and the fused score
	// (Σ (1 + s)/2 × 1/(k + rank) over the rankings it is in, s its
	// strength in each) that then stands for Match + Lent in Relevance.
	LexicalRank int
	VectorRank  int
	Similarity  float64
	Fused       float64
	// SalienceFactor is what Salience multiplies Relevance by in Score,
	// by the weights of the engine that ranked the hit (rank.Factor).
	SalienceFactor float64
}

// PromptBelongs is the probability that a prompt of typicality t
// (HitExplain.Typicality, a log-likelihood ratio) is its project's rather
// than another project's of the database, at even odds before its words
// are read: 1/(1 + e^−t), ½ at 0, near 1 for a prompt plainly the
// project's, near 0 for one plainly another's. A relevance floor reads a
// memory's Strength times this: a prompt whose project is in doubt needs
// a stronger match to bring in a memory.
func PromptBelongs(t float64) float64 { return 1 / (1 + math.Exp(-t)) }
