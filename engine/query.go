package engine

import (
	"context"
	"math"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
)

// fillerWeight is the weight of a filler word of a prompt
// (lexical.IsFiller: "thanks", "continue", "ultrathink", "help"): a
// quarter of a word's, so that a prompt's way of asking does not decide
// what it finds, while a query of such words alone still finds what
// holds them.
const fillerWeight = 0.25

// compoundWhole is the share of a compound word's weight that its whole
// form carries; its parts and joined spelling share the rest. A memory
// that holds the identifier ("AuthService.Refresh") matches the whole and
// every part, and so counts like a memory that holds a plain query word;
// one that holds only a part ("refresh") counts for that part's share.
const compoundWhole = 0.5

// QueryWeights returns the terms a search scores for text and the weight
// of each: every word of the query weighs 1 in all, shared by the terms it
// gives (a compound's whole form, parts and joined spelling; see
// lexical.QueryWords), so that one identifier does not outweigh the other
// words by the number of its parts; a filler word (lexical.IsFiller)
// weighs fillerWeight. A word repeated counts once; a term
// given by two words keeps its larger weight. Terms come in first-seen
// order.
func QueryWeights(text string) []index.Query {
	qs, _ := queryWeights(text)
	return qs
}

// ExplainQuery implements cairn.SearchService: the weights of QueryWeights
// and the engine's BM25 and ranking parameters.
func (e *Engine) ExplainQuery(_ context.Context, text string) (*cairn.QueryExplanation, error) {
	return explainQuery(text, e.bm25, e.ranking), nil
}

// DefaultQueryExplanation is ExplainQuery of an engine with the default
// options.
func DefaultQueryExplanation(text string) *cairn.QueryExplanation {
	return explainQuery(text, index.DefaultParams(), DefaultRanking())
}

func explainQuery(text string, p index.Params, r Ranking) *cairn.QueryExplanation {
	x := &cairn.QueryExplanation{K1: p.K1, B: p.B, Pivot: p.Pivot, Coverage: r.Coverage,
		NeighbourShare: r.NeighbourShare, NeighbourCap: r.NeighbourCap}
	for _, q := range QueryWeights(text) {
		x.Terms = append(x.Terms, cairn.QueryTerm{Term: q.Term, Weight: q.Weight})
	}
	return x
}

// wordKinds names the terms of a query's words that are of a kind:
// written as names (lexical.QueryWord.Name), or filler words
// (lexical.IsFiller) that no other word of the query gives.
type wordKinds struct {
	names, fillers map[string]bool
}

// queryWeights returns QueryWeights and the kinds of its words.
func queryWeights(text string) ([]index.Query, wordKinds) {
	var out []index.Query
	var kinds wordKinds
	at := map[string]int{}
	set := func(t string, w float64, filler bool) {
		if filler {
			if kinds.fillers == nil {
				kinds.fillers = map[string]bool{}
			}
			if _, ok := at[t]; !ok {
				kinds.fillers[t] = true
			}
		} else {
			delete(kinds.fillers, t)
		}
		if i, ok := at[t]; ok {
			out[i].Weight = max(out[i].Weight, w)
			return
		}
		at[t] = len(out)
		out = append(out, index.Query{Term: t, Weight: w})
	}
	for _, w := range lexical.QueryWords(text) {
		if w.Name {
			if kinds.names == nil {
				kinds.names = map[string]bool{}
			}
			for _, t := range w.Terms {
				kinds.names[t] = true
			}
		}
		if !w.Compound() {
			if lexical.IsFiller(w.Terms[0]) {
				set(w.Terms[0], fillerWeight, true)
			} else {
				set(w.Terms[0], 1, false)
			}
			continue
		}
		set(w.Terms[0], compoundWhole, false)
		rest := w.Terms[1:]
		for _, t := range rest {
			set(t, (1-compoundWhole)/float64(len(rest)), false)
		}
	}
	return out, kinds
}

func termNames(qs []index.Query) []string {
	out := make([]string, len(qs))
	for i, q := range qs {
		out[i] = q.Term
	}
	return out
}

// commonFloor: a partition must hold this many documents before a term's
// commonness lowers its weight beyond what idf does, so that a small
// project's few memories all stay findable.
const commonFloor = 20

// commonLeast is the least share of its weight a common term keeps.
const commonLeast = 0.2

// scoreWeight is the weight a term found in df documents is scored with
// in a partition of n documents: its query weight, lowered further for a
// term that most memories hold (BM25's idf alone keeps such a term at
// about a tenth of a rare one's weight; a project's name in every memory
// says nothing).
func scoreWeight(qs []index.Query, term string, df, n int64) float64 {
	w := 0.0
	for _, q := range qs {
		if q.Term == term {
			w = q.Weight
			break
		}
	}
	return w * commonness(df, n)
}

// commonness is what a term found in df of a partition's n documents
// keeps of its weight for being common: 1 up to half the documents, then
// less, linearly, to commonLeast for a term that every document holds
// (partitions of commonFloor documents or more).
func commonness(df, n int64) float64 {
	if n < commonFloor || df*2 <= n {
		return 1
	}
	return max(commonLeast, 2*float64(n-df)/float64(n))
}

// queryWeight is the query's total weight in a partition of n documents,
// given the postings found for its terms: the denominator of coverage.
// A term without postings counts with its full weight.
func queryWeight(qs []index.Query, tps []*index.Postings, n int64) float64 {
	df := map[string]int64{}
	for _, p := range tps {
		df[p.Term] = p.DF
	}
	total := 0.0
	for _, q := range qs {
		total += scoreWeight(qs, q.Term, df[q.Term], n)
	}
	return total
}

// strengthPrior is how many memories that hold none of the query's words
// Strength counts beside the partition's own: a background against which
// a word is rare or common. Without it a small project's idf says little
// (in two memories, a word both hold weighs a tenth of one neither holds,
// so a prompt's unknown words swamp what matches); with 1,000, a word the
// project has never seen still weighs more than one it holds, by about a
// third at most. Measured on the eval at floor 0.4: answers kept in 88% of
// the questions (84% without the prior), false fires 3.5% (3.9%).
const strengthPrior = 1000

// unknownNameWeight multiplies, in Strength, the weight of a word written as
// a name (lexical.QueryWord.Name) that no memory of the partition holds: a
// prompt about a person, a service or an identifier the project has never
// seen is most likely not about this project's memories. Measured on the
// eval (a question put to the other conversation): false fires at floor
// 0.35 fell from 9.1% to 1.3%, while 91% of questions kept a match.
const unknownNameWeight = 2

// termCommonness is each query term's commonness (see commonness) in a
// partition of n documents: the share of its weight for Strength that a
// memory holding it gets. A word that most memories hold (the project's
// name, a folder most files sit in, a word of a boilerplate title) says
// little about any one of them, so a prompt matched on such words alone
// does not clear a relevance floor.
func termCommonness(qs []index.Query, tps []*index.Postings, n int64) []float64 {
	df := map[string]int64{}
	for _, tp := range tps {
		df[tp.Term] = tp.DF
	}
	out := make([]float64, len(qs))
	for i, q := range qs {
		out[i] = commonness(df[q.Term], n)
	}
	return out
}

// termIDFs is each query term's weight times its idf for Strength, in a
// partition of n documents seen beside strengthPrior others; kinds are
// the query's words of a kind. A filler word (lexical.IsFiller: "thanks",
// "continue", "ultrathink") weighs nothing in a prompt: it neither counts
// for a memory that holds it nor against one that does not; elsewhere (a
// search, an error's text: "want 3, got 2") it weighs a word's.
func termIDFs(qs []index.Query, tps []*index.Postings, n int64, kinds wordKinds, prompt bool) []index.Query {
	df := map[string]int64{}
	for _, tp := range tps {
		df[tp.Term] = tp.DF
	}
	out := make([]index.Query, 0, len(qs))
	prior := float64(strengthPrior)
	for _, q := range qs {
		d := float64(df[q.Term])
		w := q.Weight * math.Log(1+(float64(n)+prior-d+0.5)/(d+0.5))
		if kinds.fillers[q.Term] {
			w = math.Log(1 + (float64(n)+prior-d+0.5)/(d+0.5)) // a word's weight, 1
			if prompt {
				w = 0
			}
		}
		if d == 0 && kinds.names[q.Term] {
			w *= unknownNameWeight
		}
		out = append(out, index.Query{Term: q.Term, Weight: w})
	}
	return out
}

// typicalitySmoothing is the count added to every word's presence and to
// its absence when typicality estimates how often a project's memories
// hold it (the Krichevsky–Trofimov estimate: half a memory each way), so
// that a word a project has never seen is rare there, not impossible: one
// word of a prompt that another project holds does not outvote the others.
const typicalitySmoothing = 0.5

// typicality measures whose prompt a prompt is: how much more typical its
// words are of one project's memories than of the database's other
// projects' together, as a log-likelihood ratio (natural log) summed over
// the prompt's words, each counted by its query weight (a compound's
// terms share one word's):
//
//	Σ weight × ln( (df + ½)/(n + 1) ÷ (df_rest + ½)/(n_rest + 1) )
//
// where df of the project's n memories hold the term and df_rest of the
// other projects' n_rest. Filler words of a prompt, and terms that no
// memory of the database holds (they say nothing of whose prompt it is),
// are left out. Above 0 the prompt reads as the project's; below, as
// another project's: a question about triangles put to a project about
// probability, though both speak of problems and accuracy. ok is false
// when there is too little to compare: the project, or the other projects
// together, hold fewer than commonFloor memories (a project of one memory
// holds each of its words in all its memories), or the prompt has no
// word the database holds.
func typicality(qs []index.Query, kinds wordKinds, prompt bool, own map[string]int64, n int64, rest map[string]int64, nRest int64) (float64, bool) {
	if n < commonFloor || nRest < commonFloor {
		return 0, false
	}
	a := typicalitySmoothing
	sum, counted := 0.0, false
	for _, q := range qs {
		if q.Weight <= 0 || prompt && kinds.fillers[q.Term] {
			continue
		}
		d, r := float64(own[q.Term]), float64(rest[q.Term])
		if d == 0 && r == 0 {
			continue
		}
		p := (d + a) / (float64(n) + 2*a)
		o := (r + a) / (float64(nRest) + 2*a)
		sum += q.Weight * math.Log(p/o)
		counted = true
	}
	return sum, counted
}

// typicalityTerms are the terms of a prompt's words that typicality
// counts: all but its filler words.
func typicalityTerms(qs []index.Query, kinds wordKinds) []string {
	out := make([]string, 0, len(qs))
	for _, q := range qs {
		if q.Weight > 0 && !kinds.fillers[q.Term] {
			out = append(out, q.Term)
		}
	}
	return out
}
