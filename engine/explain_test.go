package engine_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/rank"
)

// A search's explanation is the engine's own: its BM25 and ranking
// parameters and the salience factor by its weights, not the defaults
// (a caller that printed the defaults would be wrong for an engine tuned
// otherwise).
func TestTheExplanationIsTheEnginesOwn(t *testing.T) {
	t.Parallel()
	w := rank.DefaultWeights()
	w.Share, w.Swing = 0.9, 0.4
	r := engine.DefaultRanking()
	r.Coverage, r.NeighbourCap = 0.25, 0.75
	e := engine.New(newStore(t), &engine.Options{Weights: w, Ranking: r, BM25: index.Params{K1: 2, B: 0.5, Pivot: 32}})
	x, err := e.ExplainQuery(t.Context(), "refresh the AuthService token")
	if err != nil {
		t.Fatal(err)
	}
	if x.K1 != 2 || x.B != 0.5 || x.Pivot != 32 || x.Coverage != 0.25 || x.NeighbourCap != 0.75 || len(x.Terms) == 0 {
		t.Errorf("explanation %+v, want the engine's parameters and the query's terms", x)
	}
	if d := engine.DefaultQueryExplanation("refresh the AuthService token"); d.K1 != index.DefaultParams().K1 || len(d.Terms) != len(x.Terms) {
		t.Errorf("the default explanation %+v", d)
	}
	if _, err := e.WithProject("p").AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "decision", Content: "Refresh the AuthService token early."}); err != nil {
		t.Fatal(err)
	}
	hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "refresh token", Explain: true})
	if err != nil || len(hits) != 1 {
		t.Fatalf("Search = %v, %v", hits, err)
	}
	if got, want := hits[0].Explain.SalienceFactor, rank.Factor(hits[0].Salience, w); got != want || want == rank.Factor(hits[0].Salience, rank.DefaultWeights()) {
		t.Errorf("salience factor %v, want %v by the engine's weights (the default weights give another)", got, want)
	}
}
