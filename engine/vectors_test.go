package engine_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/embed/embedtest"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/modelbudget"
	"github.com/cairn-dev/cairn/recall"
)

// concepts make the test endpoint's vectors carry meaning: words of one
// concept get close vectors though they share no letters.
var concepts = map[string]string{
	"ship": "deliver", "published": "deliver", "publish": "deliver", "rollout": "deliver",
	"version": "release", "releases": "release", "release": "release", "tagging": "release",
	"database": "storage", "postgres": "storage", "sqlite": "storage", "persistence": "storage",
	"slow": "latency", "latency": "latency", "sluggish": "latency",
}

// meaningCorpus: the answer to "how do we ship a new version" shares no
// word with it; a distractor shares "new".
var meaningCorpus = []struct{ typ, content string }{
	{"decision", "Releases are published by tagging main; the pipeline uploads binaries."},
	{"pitfall", "The new parser mishandles nested blocks in templates."},
	{"convention", "Persistence goes through the sqlite package only."},
	{"fix", "Sluggish startup came from reading every migration file twice."},
	{"learning", "Golden files are regenerated with the update flag."},
}

type vecEnv struct {
	e    *engine.Engine
	srv  *embedtest.Server
	ids  []string
	opts *engine.Options
}

func newVecEnv(t *testing.T, batch int, vs engine.VectorSettings) *vecEnv {
	t.Helper()
	srv := embedtest.NewServer(t, concepts)
	client, err := embed.New(embed.Config{BaseURL: srv.URL(), Model: "test-embed", BatchSize: batch, Retries: -1}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	opts := &engine.Options{Embedder: client, Vectors: vs}
	env := &vecEnv{e: engine.New(newStore(t), opts), srv: srv, opts: opts}
	for _, c := range meaningCorpus {
		res, err := env.e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: c.typ, Content: c.content})
		if err != nil {
			t.Fatal(err)
		}
		env.ids = append(env.ids, res.Memory.ID)
	}
	return env
}

func (env *vecEnv) fill(t *testing.T) engine.FillReport {
	t.Helper()
	rep, err := env.e.FillVectors(t.Context(), "p", nil)
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func searchMode(t *testing.T, e *engine.Engine, mode, text string) ([]cairn.Hit, cairn.Retrieval) {
	t.Helper()
	hits, r, err := e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: text, Mode: mode, Limit: 5, Explain: true})
	if err != nil {
		t.Fatalf("%s search %q: %v", mode, text, err)
	}
	return hits, r
}

func TestHybridFindsTheAnswerThatSharesMeaningButNoWords(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 2, engine.VectorSettings{})
	env.fill(t)
	const query = "how do we ship a new version"
	answer := env.ids[0]

	lex, r := searchMode(t, env.e, cairn.ModeLexical, query)
	if slices.Contains(hitIDs(lex), answer) || r.Used != cairn.ModeLexical {
		t.Fatalf("lexical search found the answer by its words: %v", hitIDs(lex))
	}
	if len(lex) == 0 || lex[0].Memory.ID != env.ids[1] {
		t.Fatalf("lexical search should find the distractor sharing \"new\": %v", hitIDs(lex))
	}
	for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid, ""} {
		hits, r := searchMode(t, env.e, mode, query)
		if r.Used == cairn.ModeLexical || r.Fallback != "" {
			t.Fatalf("mode %q fell back: %+v", mode, r)
		}
		if len(hits) == 0 || hits[0].Memory.ID != answer {
			t.Fatalf("mode %q: %v, want %s first", mode, hitIDs(hits), answer)
		}
		h := hits[0]
		if h.Explain.VectorRank != 1 || h.Explain.LexicalRank != 0 || h.Explain.Similarity < 0.5 || h.Explain.Fused <= 0 || h.Strength < 0.3 {
			t.Errorf("mode %q: the answer's explanation %+v", mode, h)
		}
	}
	// Hybrid keeps the lexical match too, with both ranks shown.
	hits, _ := searchMode(t, env.e, cairn.ModeHybrid, query)
	i := slices.Index(hitIDs(hits), env.ids[1])
	if i < 0 || hits[i].Explain.LexicalRank != 1 {
		t.Errorf("hybrid lost the lexical match: %v", hitIDs(hits))
	}
}

func TestFillVectorsBatchesResumesAndReembedsOnlyWhatChanged(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 2, engine.VectorSettings{})
	if n := len(env.srv.Requests()); n != 0 {
		t.Fatalf("writes called the endpoint %d times", n)
	}
	var progress [][2]int
	rep, err := env.e.FillVectors(t.Context(), "p", func(done, total int) { progress = append(progress, [2]int{done, total}) })
	if err != nil {
		t.Fatal(err)
	}
	if rep.Embedded != 5 || rep.Before != 0 || rep.Memories != 5 || rep.Calls != 3 || len(env.srv.Requests()) != 3 {
		t.Fatalf("first fill: %+v, %d requests", rep, len(env.srv.Requests()))
	}
	if !slices.Equal(progress, [][2]int{{2, 5}, {4, 5}, {5, 5}}) {
		t.Errorf("progress %v", progress)
	}
	// Nothing to do: the cache is keyed by content hash and model.
	if rep := env.fill(t); rep.Embedded != 0 || rep.Before != 5 || len(env.srv.Requests()) != 3 {
		t.Errorf("second fill: %+v", rep)
	}
	// A memory with the same content as another costs nothing.
	if _, err := env.e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "note", Title: "copy", Key: "k", Content: meaningCorpus[4].content}); err != nil {
		t.Fatal(err)
	}
	if n, _, _, _ := env.e.VectorCoverage(t.Context(), "p"); n.Memories != 6 || n.Embedded != 6 {
		t.Errorf("coverage with shared content: %+v", n)
	}
	// A changed memory is embedded again, alone.
	content := "Databases are migrated before the rollout."
	if _, err := env.e.UpdateMemory(t.Context(), env.ids[2], cairn.MemoryUpdate{Content: &content}); err != nil {
		t.Fatal(err)
	}
	if n, _, _, _ := env.e.VectorCoverage(t.Context(), "p"); n.Embedded != 5 {
		t.Errorf("coverage after a change: %+v", n)
	}
	if rep := env.fill(t); rep.Embedded != 1 {
		t.Errorf("fill after a change: %+v", rep)
	}
	reqs := env.srv.Requests()
	if last := reqs[len(reqs)-1]; len(last.Input) != 1 || last.Input[0] != content {
		t.Errorf("re-embedded %v", last.Input)
	}
	// Another model: nothing is embedded for it until it is filled.
	other, _ := embed.New(embed.Config{BaseURL: env.srv.URL(), Model: "other-model"}, nil, nil, nil)
	e2 := engine.New(env.e.Store(), &engine.Options{Embedder: other})
	if n, model, ok, _ := e2.VectorCoverage(t.Context(), "p"); !ok || model != "other-model" || n.Embedded != 0 {
		t.Errorf("other model's coverage: %+v %s", n, model)
	}
	if _, r := searchMode(t, e2, cairn.ModeHybrid, "ship a version"); r.Used != cairn.ModeLexical || !strings.Contains(r.Fallback, "cairn embed") {
		t.Errorf("search with the other model before filling: %+v", r)
	}
	if rep, err := e2.FillVectors(t.Context(), "p", nil); err != nil || rep.Embedded != 5 { // six memories, five contents
		t.Errorf("fill of the other model: %+v %v", rep, err)
	}
}

func TestFillVectorsStopsAtTheBudgetAndResumesLater(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, concepts)
	client, _ := embed.New(embed.Config{BaseURL: srv.URL(), Model: "m", BatchSize: 2, MaxCallsPerDay: 2}, nil, nil, nil)
	e := engine.New(newStore(t), &engine.Options{Embedder: client})
	for _, c := range meaningCorpus {
		if _, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: c.typ, Content: c.content}); err != nil {
			t.Fatal(err)
		}
	}
	rep, err := e.FillVectors(t.Context(), "p", nil)
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || rep.Embedded != 4 {
		t.Fatalf("over budget: %+v %v", rep, err)
	}
	// The next day (a new client's budget here), the rest.
	client2, _ := embed.New(embed.Config{BaseURL: srv.URL(), Model: "m", BatchSize: 2}, nil, nil, nil)
	e2 := engine.New(e.Store(), &engine.Options{Embedder: client2})
	if rep, err := e2.FillVectors(t.Context(), "p", nil); err != nil || rep.Embedded != 1 || rep.Before != 4 {
		t.Errorf("resumed: %+v %v", rep, err)
	}
}

func TestVectorSearchFallsBackToLexicalWhenTheEndpointIsSlowDownOrMalformed(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{QueryTimeout: 100 * time.Millisecond, Backoff: time.Millisecond})
	env.fill(t)
	const query = "nested parser blocks"
	lex, _ := searchMode(t, env.e, cairn.ModeLexical, query)

	env.srv.SetDelay(time.Second)
	start := time.Now()
	hits, r := searchMode(t, env.e, cairn.ModeHybrid, query)
	if r.Used != cairn.ModeLexical || !strings.Contains(r.Fallback, "did not answer within") || time.Since(start) > 700*time.Millisecond {
		t.Errorf("slow endpoint: %+v after %s", r, time.Since(start))
	}
	if !slices.Equal(hitIDs(hits), hitIDs(lex)) {
		t.Errorf("the fallback is not the lexical ranking: %v, want %v", hitIDs(hits), hitIDs(lex))
	}
	env.srv.SetDelay(0)
	time.Sleep(5 * time.Millisecond) // past the backoff
	env.srv.FailNext(503)
	if _, r := searchMode(t, env.e, cairn.ModeVector, query); r.Used != cairn.ModeLexical || !strings.Contains(r.Fallback, "503") {
		t.Errorf("failing endpoint: %+v", r)
	}
	time.Sleep(5 * time.Millisecond)
	env.srv.AnswerRaw(`{"data": "nope"}`)
	if _, r := searchMode(t, env.e, cairn.ModeHybrid, query); r.Used != cairn.ModeLexical || r.Fallback == "" {
		t.Errorf("malformed answer: %+v", r)
	}
}

func TestAFailedEndpointIsNotAskedAgainDuringTheBackoff(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{Backoff: time.Hour})
	env.fill(t)
	before := len(env.srv.Requests())
	env.srv.FailNext(500)
	searchMode(t, env.e, cairn.ModeHybrid, "ship a version")
	_, r := searchMode(t, env.e, cairn.ModeHybrid, "ship a new version")
	if n := len(env.srv.Requests()) - before; n != 1 || !strings.Contains(r.Fallback, "not asked again") {
		t.Errorf("%d requests during the backoff; %+v", n, r)
	}
}

func TestVectorSearchKeepsToTheProjectAndTheFilters(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	other, err := env.e.AddMemory(t.Context(), &cairn.Memory{Project: "q", Type: "decision", Content: "Releases are published by tagging main; the pipeline uploads binaries!"})
	if err != nil {
		t.Fatal(err)
	}
	env.fill(t)
	if _, err := env.e.FillVectors(t.Context(), "q", nil); err != nil {
		t.Fatal(err)
	}
	hits, _, err := env.e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "ship a version", Mode: cairn.ModeVector, Limit: 50})
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(hitIDs(hits), other.Memory.ID) || len(hits) != 1 || hits[0].Memory.ID != env.ids[0] {
		t.Errorf("project p sees %v", hitIDs(hits))
	}
	hits, _, _ = env.e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "ship a version", Mode: cairn.ModeVector, Types: []string{"fix"}})
	if len(hits) != 0 {
		t.Errorf("type filter let through %v", hitIDs(hits))
	}
	hits, _, _ = env.e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "latency", Mode: cairn.ModeVector, Types: []string{"fix"}})
	if len(hits) != 1 || hits[0].Memory.ID != env.ids[3] {
		t.Errorf("type filter: %v", hitIDs(hits))
	}
	// A memory deleted after the index was loaded is not returned.
	if err := env.e.DeleteMemory(t.Context(), env.ids[0]); err != nil {
		t.Fatal(err)
	}
	hits, _, _ = env.e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "ship a version", Mode: cairn.ModeVector})
	if slices.Contains(hitIDs(hits), env.ids[0]) {
		t.Errorf("deleted memory returned: %v", hitIDs(hits))
	}
}

// Bad input tried: an unknown mode, a vector mode without an endpoint, an
// empty query in a vector mode (refused before the endpoint is asked, and
// without holding the endpoint back).
func TestVectorModesNeedAnEndpoint(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	if _, r, err := e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "x"}); err != nil || r.Asked != cairn.ModeLexical {
		t.Errorf("default without an endpoint: %+v, %v", r, err)
	}
	for _, mode := range []string{cairn.ModeVector, cairn.ModeHybrid, "semantic"} {
		if _, _, err := e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "x", Mode: mode}); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("mode %s: %v", mode, err)
		}
	}
	if _, err := e.FillVectors(t.Context(), "p", nil); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("fill without an endpoint: %v", err)
	}
	env := newVecEnv(t, 8, engine.VectorSettings{Backoff: time.Hour})
	env.fill(t)
	if _, _, err := env.e.SearchRetrieval(t.Context(), cairn.Query{Project: "p", Text: "  ", Mode: cairn.ModeHybrid}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("empty query: %v", err)
	}
	if _, r := searchMode(t, env.e, cairn.ModeHybrid, "ship a version"); r.Fallback != "" {
		t.Errorf("after an empty query: %+v", r)
	}
}

func TestContextOnMeaningFiresForARelatedPromptOnly(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	relevant := func(prompt string) ([]string, cairn.Retrieval) {
		c := config.Default()
		c.Context.Static.Enabled, c.Context.Dynamic.Enabled = false, false
		b, err := recall.Build(t.Context(), env.e, c, cairn.ContextRequest{Project: "p", Prompt: prompt})
		if err != nil {
			t.Fatal(err)
		}
		sel := b.Selection
		var ids []string
		for _, it := range sel.Items {
			if it.Tier == cairn.ContextRelevant {
				ids = append(ids, it.Memory.ID)
			}
		}
		return ids, sel.Retrieval
	}
	ids, r := relevant("ship a version")
	if r.Used != cairn.ModeHybrid || !slices.Contains(ids, env.ids[0]) {
		t.Errorf("related prompt: %v, %+v", ids, r)
	}
	if ids, r := relevant("bake sourdough bread at home"); len(ids) != 0 || r.Used != cairn.ModeHybrid {
		t.Errorf("an unrelated prompt got %v (%+v)", ids, r)
	}
}

func TestNewVectorsReachARunningEngineWithoutBlockingItsSearches(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	searchMode(t, env.e, cairn.ModeVector, "ship a version") // loads the index
	res, err := env.e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "fix", Content: "Sluggish latency in the rollout dashboard."})
	if err != nil {
		t.Fatal(err)
	}
	// The background fill of a long-running process (package jobs).
	filled := make(chan engine.FillReport, 1)
	go func() {
		rep, err := env.e.FillVectors(t.Context(), "", nil)
		if err != nil {
			t.Errorf("background fill: %v", err)
		}
		filled <- rep
	}()
	select {
	case rep := <-filled:
		if rep.Embedded != 1 {
			t.Fatalf("background fill: %+v", rep)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the background fill did not run")
	}
	// The index is reloaded in the background: searches go on meanwhile,
	// and soon find the new memory.
	deadline := time.Now().Add(10 * time.Second)
	for {
		hits, _ := searchMode(t, env.e, cairn.ModeVector, "latency")
		if slices.Contains(hitIDs(hits), res.Memory.ID) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the new memory's vector never reached the index: %v", hitIDs(hits))
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestSearchByVectorRanksByAVectorTheCallerHas(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	v := embedtest.Vector("persistence", concepts, embedtest.DefaultDims)
	hits, err := env.e.SearchByVector(t.Context(), cairn.Query{Project: "p", Limit: 3, Explain: true}, v)
	if err != nil || len(hits) == 0 || hits[0].Memory.ID != env.ids[2] || hits[0].Explain.Similarity < 0.5 {
		t.Fatalf("%v %v", hitIDs(hits), err)
	}
	if n := len(env.srv.Requests()); n != 1 {
		t.Errorf("the endpoint was asked %d times, want only the fill's 1", n)
	}
	if _, err := env.e.SearchByVector(t.Context(), cairn.Query{Project: "p"}, v[:10]); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("a vector of the wrong length: %v", err)
	}
}

func TestSearchRanksLexicallyOverBudgetOrAfterADimensionChange(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	// The same model asked for fewer dimensions than were stored.
	short, _ := embed.New(embed.Config{BaseURL: env.srv.URL(), Model: "test-embed", Dimensions: 16}, nil, nil, nil)
	e2 := engine.New(env.e.Store(), &engine.Options{Embedder: short})
	if _, r := searchMode(t, e2, cairn.ModeHybrid, "ship a version"); r.Used != cairn.ModeLexical || !strings.Contains(r.Fallback, "16 dimensions") {
		t.Errorf("dimension change: %+v", r)
	}
	// A spent budget: no request is sent.
	b := &modelbudget.MemBudget{}
	b.Add(modelbudget.Day(time.Now()), 5, 0)
	spent, _ := embed.New(embed.Config{BaseURL: env.srv.URL(), Model: "test-embed", MaxCallsPerDay: 5}, b, nil, nil)
	e3 := engine.New(env.e.Store(), &engine.Options{Embedder: spent})
	before := len(env.srv.Requests())
	if _, r := searchMode(t, e3, cairn.ModeHybrid, "ship a version"); r.Used != cairn.ModeLexical || !strings.Contains(r.Fallback, "call limit") {
		t.Errorf("over budget: %+v", r)
	}
	if len(env.srv.Requests()) != before {
		t.Errorf("a request was sent over the budget")
	}
}

func TestAQueryIsRedactedBeforeItIsSentToTheEndpoint(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	opts := *env.opts
	opts.Redact = func(s string) string { return strings.ReplaceAll(s, "hunter2", "[secret]") }
	e := engine.New(env.e.Store(), &opts)
	searchMode(t, e, cairn.ModeHybrid, "ship the version with password hunter2")
	reqs := env.srv.Requests()
	last := reqs[len(reqs)-1].Input
	if len(last) != 1 || strings.Contains(last[0], "hunter2") || !strings.Contains(last[0], "[secret]") {
		t.Errorf("sent %q", last)
	}
}

func TestAQuerySearchedAgainIsEmbeddedOnce(t *testing.T) {
	t.Parallel()
	env := newVecEnv(t, 8, engine.VectorSettings{})
	env.fill(t)
	before := len(env.srv.Requests())
	for i := 0; i < 3; i++ {
		if _, r := searchMode(t, env.e, cairn.ModeHybrid, "ship a version"); r.Used != cairn.ModeHybrid {
			t.Fatalf("%+v", r)
		}
	}
	searchMode(t, env.e, cairn.ModeHybrid, "another question")
	if n := len(env.srv.Requests()) - before; n != 2 {
		t.Errorf("%d requests for two different queries", n)
	}
}
