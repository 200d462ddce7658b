package engine

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/rank"
	"github.com/cairn-dev/cairn/vector"
)

// Embedder turns texts into vectors (package embed's Client is one).
// Implementations are safe for concurrent use.
type Embedder interface {
	Model() string
	BatchSize() int
	Embed(ctx context.Context, texts []string) ([][]float32, embed.Usage, error)
}

// VectorSettings tune vector retrieval. Zero fields mean the defaults of
// DefaultVectorSettings.
type VectorSettings struct {
	// Mode is the search mode of a query without one when the engine has
	// an endpoint: cairn.ModeHybrid (the default), ModeVector or
	// ModeLexical.
	Mode string
	// QueryTimeout bounds the embedding of a search's query, and
	// PromptTimeout that of a prompt's for context injection: past it,
	// the search ranks lexically and says so (cairn.Retrieval).
	QueryTimeout  time.Duration
	PromptTimeout time.Duration
	// SimilarityFloor is the cosine similarity at which a vector match
	// counts as strong as a lexical match at the default context floor
	// (a Strength of 0.3): see vectorStrength. It depends on the model;
	// 0.5 suits OpenAI's text-embedding-3 models and nomic-embed-text.
	SimilarityFloor float64
	// RRFK is the k of reciprocal rank fusion (see Engine.fuse).
	RRFK float64
	// Backoff: after the endpoint fails, queries are ranked lexically
	// without asking it for this long, so that a down endpoint costs one
	// timeout, not one per prompt.
	Backoff time.Duration
}

// DefaultVectorSettings are the settings vector retrieval runs with.
func DefaultVectorSettings() VectorSettings {
	return VectorSettings{Mode: cairn.ModeHybrid, QueryTimeout: 2 * time.Second, PromptTimeout: 150 * time.Millisecond,
		SimilarityFloor: 0.5, RRFK: 60, Backoff: 30 * time.Second}
}

func (v VectorSettings) withDefaults() VectorSettings {
	d := DefaultVectorSettings()
	if v.Mode == "" {
		v.Mode = d.Mode
	}
	if v.QueryTimeout <= 0 {
		v.QueryTimeout = d.QueryTimeout
	}
	if v.PromptTimeout <= 0 {
		v.PromptTimeout = d.PromptTimeout
	}
	if v.SimilarityFloor <= 0 || v.SimilarityFloor >= 1 {
		v.SimilarityFloor = d.SimilarityFloor
	}
	if v.RRFK <= 0 {
		v.RRFK = d.RRFK
	}
	if v.Backoff <= 0 {
		v.Backoff = d.Backoff
	}
	return v
}

// contextFloor is the Strength a vector match at SimilarityFloor gets:
// the default relevance floor of a context block (context.relevant.floor).
const contextFloor = 0.3

// vectorStrength maps a cosine similarity to a Strength (see cairn.Hit), a
// scale that means the same for every query: linear from 0 at similarity
// 0 to contextFloor at floor, then to 1 at similarity 1. A prompt whose
// best vector match is below floor thus gets no relevant memories on
// meaning alone, as one whose words match weakly gets none on words.
func vectorStrength(sim, floor float64) float64 {
	switch {
	case sim <= 0:
		return 0
	case sim < floor:
		return contextFloor * sim / floor
	}
	return min(1, contextFloor+(1-contextFloor)*(sim-floor)/(1-floor))
}

// vectorState is what the engines derived from one New share: the index
// of each project's vectors and the endpoint's recent failure.
type vectorState struct {
	mu       sync.Mutex
	indexes  map[string]*projectVectors // by project
	failedAt time.Time
	failure  string
	queries  map[string][]float32 // query vectors by model and text
}

// projectVectors is the index of the vectors a search of one project
// sees. Its index and slices are not changed once loaded (a reload makes
// a new one); the fields below them are guarded by vectorState.mu.
type projectVectors struct {
	model   string
	ix      *vector.Index
	foreign []bool   // by position: a global-scope memory of another project
	hashes  []string // by position: the content hash the vector was made from

	checked   time.Time // when the store was last compared with it
	stale     bool      // vectors were stored since it was loaded
	reloading bool
}

// Vectors reports whether the engine has an embeddings endpoint.
func (e *Engine) Vectors() bool { return e.embedder != nil }

// defaultMode is the search mode of a Query without one: the settings'
// Mode with an endpoint, else lexical.
func (e *Engine) defaultMode() string {
	if e.embedder != nil {
		return e.vecs.Mode
	}
	return cairn.ModeLexical
}

// invalidateVectors makes the next vector search reload the indexes
// (FillVectors stored vectors).
func (e *Engine) invalidateVectors() {
	e.vstate.mu.Lock()
	for _, pv := range e.vstate.indexes {
		pv.stale = true
	}
	e.vstate.mu.Unlock()
}

// maxIDsPerRead bounds the ids one FindMemories is given.
const maxIDsPerRead = 500

// vectorReload is how old an index may be before a search checks whether
// the store holds other vectors.
const vectorReload = 30 * time.Second

// projectIndex returns the index of project's vectors. The first search
// (or one after a change of model) loads it; later, when vectors were
// stored since (invalidateVectors) or vectorReload has passed, it is
// reloaded in the background while searches go on with the one loaded,
// so that no search waits for a reload (an empty index is reloaded at
// once: there is nothing to go on with).
func (e *Engine) projectIndex(ctx context.Context, vs cairn.VectorStore, project string) (*projectVectors, error) {
	model := e.embedder.Model()
	e.vstate.mu.Lock()
	pv := e.vstate.indexes[project]
	if pv != nil && pv.model == model {
		due := pv.stale || time.Since(pv.checked) >= vectorReload
		switch {
		case !due || pv.reloading:
			e.vstate.mu.Unlock()
			return pv, nil
		case pv.ix.Len() > 0:
			pv.reloading, pv.checked = true, time.Now()
			e.vstate.mu.Unlock()
			go e.reloadIndex(vs, project, pv)
			return pv, nil
		}
	}
	e.vstate.mu.Unlock()
	return e.loadIndex(ctx, vs, project, model)
}

// reloadIndex replaces old by a fresh index when the store's vectors
// changed. Errors leave old in place, to be tried again later.
func (e *Engine) reloadIndex(vs cairn.VectorStore, project string, old *projectVectors) {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	e.vstate.mu.Lock()
	stale := old.stale
	e.vstate.mu.Unlock()
	if !stale {
		if n, err := vs.CountVectors(ctx, old.model, project); err == nil && n.Embedded == old.ix.Len() {
			e.vstate.mu.Lock()
			old.reloading = false
			e.vstate.mu.Unlock()
			return
		}
	}
	_, err := e.loadIndex(ctx, vs, project, old.model)
	if err != nil {
		e.vstate.mu.Lock()
		old.reloading = false
		e.vstate.mu.Unlock()
	}
}

// loadIndex reads project's vectors of model into a new index and makes
// it the project's.
func (e *Engine) loadIndex(ctx context.Context, vs cairn.VectorStore, project, model string) (*projectVectors, error) {
	npv := &projectVectors{model: model, checked: time.Now()}
	count, err := vs.CountVectors(ctx, model, project)
	if err != nil {
		return nil, err
	}
	var ix *vector.Index
	err = vs.ScanMemoryVectors(ctx, model, project, func(mv cairn.MemoryVector) error {
		if ix == nil {
			ix = vector.New(len(mv.Vector))
			ix.Grow(count.Embedded)
			npv.foreign = make([]bool, 0, count.Embedded)
			npv.hashes = make([]string, 0, count.Embedded)
		}
		if len(mv.Vector) != ix.Dims() {
			return nil // of another length: made before a change of dimensions
		}
		if ix.Add(mv.ID, mv.Vector) != nil {
			return nil
		}
		npv.foreign = append(npv.foreign, mv.Global && mv.Project != project)
		npv.hashes = append(npv.hashes, mv.Hash)
		return nil
	})
	if err != nil {
		return nil, err
	}
	if ix == nil {
		ix = vector.New(0)
	}
	npv.ix = ix
	e.vstate.mu.Lock()
	if e.vstate.indexes == nil {
		e.vstate.indexes = map[string]*projectVectors{}
	}
	e.vstate.indexes[project] = npv
	e.vstate.mu.Unlock()
	return npv, nil
}

// WarmVectors loads the index of project's vectors, so that the first
// vector search does not wait for it, and returns how many it holds. It
// does nothing without an endpoint.
func (e *Engine) WarmVectors(ctx context.Context, project string) (int, error) {
	vs, ok := e.vectorStore()
	if e.embedder == nil || !ok {
		return 0, nil
	}
	pv, err := e.projectIndex(ctx, vs, project)
	if err != nil {
		return 0, err
	}
	return pv.ix.Len(), nil
}

// SearchByVector ranks q.Project's memories by the similarity of their
// vectors (of the endpoint's model) to v, a vector the caller already has
// (of the same model), with q's filters; no endpoint is called. Hits are
// as in the vector mode. EINVALID without an endpoint or when v's length
// is not the stored vectors'.
func (e *Engine) SearchByVector(ctx context.Context, q cairn.Query, v []float32) ([]cairn.Hit, error) {
	vs, ok := e.vectorStore()
	if e.embedder == nil || !ok {
		return nil, cairn.Errorf(cairn.EINVALID, "vector search needs an embeddings endpoint and a store that keeps vectors")
	}
	if err := e.checkQuery(&q); err != nil {
		return nil, err
	}
	pv, err := e.projectIndex(ctx, vs, q.Project)
	if err != nil {
		return nil, err
	}
	if pv.ix.Len() == 0 {
		return nil, nil
	}
	if len(v) != pv.ix.Dims() {
		return nil, cairn.Errorf(cairn.EINVALID, "the vector has %d dimensions and the stored ones %d", len(v), pv.ix.Dims())
	}
	vhits, err := e.vectorHits(ctx, q, pv, v, q.Limit)
	if err != nil {
		return nil, err
	}
	return e.publicHits(belowReplacements(e.fuse(q, nil, vhits)), q.Explain), nil
}

// SearchRetrieval is Search, and says how the search was ranked. In the
// vector and hybrid modes the query is embedded within the settings'
// QueryTimeout; when that fails (slow, down or over budget) or no memory
// has a vector yet, the search ranks lexically and Retrieval.Fallback
// says why. Asking for a vector mode of an engine without an endpoint is
// EINVALID.
func (e *Engine) SearchRetrieval(ctx context.Context, q cairn.Query) ([]cairn.Hit, cairn.Retrieval, error) {
	hits, r, err := e.searchMode(ctx, q, e.vecs.QueryTimeout)
	return e.publicHits(belowReplacements(hits), q.Explain), r, err
}

func (e *Engine) searchMode(ctx context.Context, q cairn.Query, timeout time.Duration) ([]hit, cairn.Retrieval, error) {
	mode := q.Mode
	if mode == "" {
		mode = e.defaultMode()
	}
	r := cairn.Retrieval{Asked: mode, Used: cairn.ModeLexical}
	switch mode {
	case cairn.ModeLexical:
		hits, err := e.searchWith(ctx, q, false)
		return hits, r, err
	case cairn.ModeVector, cairn.ModeHybrid:
	default:
		return nil, r, cairn.Errorf(cairn.EINVALID, "search mode %q is not one of lexical, vector, hybrid", q.Mode)
	}
	if e.embedder == nil {
		return nil, r, cairn.Errorf(cairn.EINVALID, "the %s search mode needs an embeddings endpoint: set embeddings.base_url and embeddings.model", mode)
	}
	vs, ok := e.vectorStore()
	if !ok {
		return nil, r, cairn.Errorf(cairn.EINVALID, "this store keeps no vectors; search with --mode lexical")
	}
	if err := e.checkQuery(&q); err != nil {
		return nil, r, err
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, r, cairn.Errorf(cairn.EINVALID, "the search query is empty; give the words to look for")
	}
	fallback := func(why string) ([]hit, cairn.Retrieval, error) {
		r.Fallback = why
		q.Mode = cairn.ModeLexical
		hits, err := e.searchWith(ctx, q, false)
		return hits, r, err
	}
	pv, err := e.projectIndex(ctx, vs, q.Project)
	if err != nil {
		return nil, r, err
	}
	if pv.ix.Len() == 0 {
		return fallback(fmt.Sprintf("no memory has a vector of %s yet (run cairn embed)", pv.model))
	}
	qv, why := e.embedQuery(ctx, q.Text, timeout)
	if why != "" {
		return fallback(why)
	}
	if len(qv) != pv.ix.Dims() {
		return fallback(fmt.Sprintf("the query's vector has %d dimensions and the stored ones %d (run cairn embed after changing the model)", len(qv), pv.ix.Dims()))
	}
	r.Used = mode
	want := q.Limit
	if mode == cairn.ModeHybrid {
		want = min(cairn.MaxLimit, max(3*q.Limit, 30)) // candidates of each ranking to fuse
	}
	vhits, err := e.vectorHits(ctx, q, pv, qv, want)
	if err != nil {
		return nil, r, err
	}
	var lhits []hit
	if mode == cairn.ModeHybrid {
		lq := q
		lq.Limit = want
		if lhits, err = e.searchWith(ctx, lq, false); err != nil {
			return nil, r, err
		}
	}
	return e.fuse(q, lhits, vhits), r, nil
}

// checkQuery validates q as Search does and fills its defaults.
func (e *Engine) checkQuery(q *cairn.Query) error {
	if !cairn.ValidProject(q.Project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid", q.Project)
	}
	if q.Limit < 0 || q.Limit > cairn.MaxLimit {
		return cairn.Errorf(cairn.EINVALID, "limit %d is out of range: give 1 to %d", q.Limit, cairn.MaxLimit)
	}
	if q.Limit == 0 {
		q.Limit = cairn.DefaultLimit
	}
	if q.Now.IsZero() {
		q.Now = e.Now()
	}
	var err error
	if q.Types, err = normalizeNames("type", q.Types); err != nil {
		return err
	}
	if err := checkFilterTags(q.Tags); err != nil {
		return err
	}
	q.Tags, err = normalizeNames("tag", q.Tags)
	return err
}

// embedQuery embeds text within timeout; on failure it returns why, and
// for a while after one it does not ask the endpoint (Backoff). The text
// is redacted as stored memories are (Options.Redact) before it leaves.
func (e *Engine) embedQuery(ctx context.Context, text string, timeout time.Duration) ([]float32, string) {
	if e.redact != nil {
		text = e.redact(text)
	}
	key := e.embedder.Model() + "\x00" + text
	e.vstate.mu.Lock()
	failedAt, failure := e.vstate.failedAt, e.vstate.failure
	cached, ok := e.vstate.queries[key]
	e.vstate.mu.Unlock()
	if ok {
		return cached, ""
	}
	if !failedAt.IsZero() && time.Since(failedAt) < e.vecs.Backoff {
		return nil, fmt.Sprintf("the embeddings endpoint failed %s ago (%s); not asked again for %s",
			time.Since(failedAt).Round(time.Second), failure, e.vecs.Backoff)
	}
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	vs, _, err := e.embedder.Embed(ctx, []string{text})
	if err != nil {
		msg := cairn.ErrorMessage(err)
		if parent.Err() != nil {
			return nil, "the search was cancelled" // the caller's doing, not the endpoint's
		}
		if errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil {
			msg = fmt.Sprintf("the embeddings endpoint did not answer within %s", timeout)
		}
		e.vstate.mu.Lock()
		e.vstate.failedAt, e.vstate.failure = time.Now(), msg
		e.vstate.mu.Unlock()
		return nil, msg
	}
	e.vstate.mu.Lock()
	e.vstate.failedAt, e.vstate.failure = time.Time{}, ""
	if e.vstate.queries == nil || len(e.vstate.queries) >= queryCacheSize {
		e.vstate.queries = map[string][]float32{} // dropped whole: simple, and rarely full
	}
	e.vstate.queries[key] = vs[0]
	e.vstate.mu.Unlock()
	return vs[0], ""
}

// queryCacheSize bounds the query vectors an engine keeps: a prompt
// searched again (by search, then context, or by several agents) is
// embedded once.
const queryCacheSize = 256

// vectorHits returns up to want memories of q.Project most similar to qv
// that pass q's filters, best first, with VectorRank and Similarity set.
// Like lexical search, it asks the index for more when filters reject too
// many.
func (e *Engine) vectorHits(ctx context.Context, q cairn.Query, pv *projectVectors, qv []float32, want int) ([]hit, error) {
	keep := func(pos int) bool { return !(q.NoGlobal && pv.foreign[pos]) }
	k := max(minCandidates, want*candidatesPerHit)
	for {
		res, err := pv.ix.Search(qv, k, keep)
		if err != nil {
			return nil, cairn.WrapError(cairn.EINTERNAL, err, "vector search")
		}
		// Results come best first: past the first below the match
		// level, none can match, and asking for more cannot help.
		minSim := e.vecs.SimilarityFloor / 2
		ended := len(res) < k
		for i, r := range res {
			if float64(r.Score) < minSim {
				res, ended = res[:i], true
				break
			}
		}
		ids := make([]string, len(res))
		for i, r := range res {
			ids[i] = r.ID
		}
		var ms []*cairn.Memory
		err = e.store.View(ctx, func(tx cairn.Tx) error {
			for start := 0; start < len(ids); start += maxIDsPerRead {
				part, _, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: q.Project, IncludeGlobal: true,
					IDs: ids[start:min(len(ids), start+maxIDsPerRead)], SkipTotal: true})
				if err != nil {
					return err
				}
				ms = append(ms, part...)
			}
			return nil
		})
		if err != nil {
			return nil, err
		}
		byID := make(map[string]*cairn.Memory, len(ms))
		for _, m := range ms {
			byID[m.ID] = m
		}
		var hits []hit
		for _, r := range res {
			m := byID[r.ID]
			switch {
			case m == nil: // deleted since the index was loaded
			case m.Project != q.Project && m.Scope != cairn.ScopeGlobal: // isolation is absolute
			case m.ContentHash != pv.hashes[r.Pos]: // changed since: its vector is of other words
			case q.NoGlobal && m.Project != q.Project:
			case !passes(m, q):
			default:
				hits = append(hits, hit{Hit: cairn.Hit{Memory: m}, HitExplain: cairn.HitExplain{Similarity: float64(r.Score), VectorRank: len(hits) + 1}})
			}
			if len(hits) == want {
				break
			}
		}
		if len(hits) >= want || ended {
			return hits, nil
		}
		k *= candidateGrowth
	}
}

// fuse ranks the union of a lexical and a vector ranking (either may be
// empty) by reciprocal rank fusion weighted by strength:
//
//	Fused = Σ over the rankings the hit is in of (1 + s)/2 × 1/(RRFK + rank)
//
// where s is the hit's strength in that ranking (its lexical Strength, or
// vectorStrength of its similarity), so that a weak match at the top of
// one ranking counts less than a strong one at the top of the other. It
// then applies salience as lexical search does: Fused stands for Match,
// Relevance is it relative to the best hit's, Score = Relevance ×
// rank.Factor(Salience). A hit's Strength is the larger of its two.
// The vector ranking holds only memories whose similarity reaches half of
// SimilarityFloor, as the lexical one holds only memories with a word of
// the query.
func (e *Engine) fuse(q cairn.Query, lex, vec []hit) []hit {
	byID := map[string]*hit{}
	var order []string
	lexOrder := append([]hit(nil), lex...)
	sort.SliceStable(lexOrder, func(i, j int) bool { return lexOrder[i].Relevance > lexOrder[j].Relevance })
	for i, h := range lexOrder {
		h := h
		h.LexicalRank = i + 1
		h.Fused = (1 + h.Strength) / 2 / (e.vecs.RRFK + float64(i+1))
		byID[h.Memory.ID] = &h
		order = append(order, h.Memory.ID)
	}
	for _, v := range vec {
		f := (1 + vectorStrength(v.Similarity, e.vecs.SimilarityFloor)) / 2 / (e.vecs.RRFK + float64(v.VectorRank))
		if h := byID[v.Memory.ID]; h != nil {
			h.VectorRank, h.Similarity = v.VectorRank, v.Similarity
			h.Fused += f
			continue
		}
		v := v
		v.Fused, v.DateFactor = f, 1
		byID[v.Memory.ID] = &v
		order = append(order, v.Memory.ID)
	}
	hits := make([]hit, 0, len(order))
	best := 0.0
	for _, id := range order {
		h := byID[id]
		if h.VectorRank > 0 {
			h.Strength = max(h.Strength, vectorStrength(h.Similarity, e.vecs.SimilarityFloor))
		}
		best = max(best, h.Fused)
		hits = append(hits, *h)
	}
	for i := range hits {
		h := &hits[i]
		h.Relevance = h.Fused / best
		h.Salience = rank.Salience(h.Memory, q.Now, e.policies.Of(h.Memory.Type).Weight, e.weights)
		h.Score = rank.Combine(h.Relevance, h.Salience, e.weights)
	}
	sort.SliceStable(hits, func(i, j int) bool {
		a, b := hits[i], hits[j]
		if a.Score != b.Score {
			return a.Score > b.Score
		}
		if a.Relevance != b.Relevance {
			return a.Relevance > b.Relevance
		}
		return a.Memory.ID < b.Memory.ID
	})
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits
}

// vectorStore is the store's vector role, when it keeps vectors.
func (e *Engine) vectorStore() (cairn.VectorStore, bool) {
	if !e.store.SupportsVectors() {
		return nil, false
	}
	return e.store.Vectors(), true
}

// FillReport is what FillVectors did.
type FillReport struct {
	Model    string
	Memories int // of the project (with the global-scope ones)
	Before   int // of them with a vector before
	Embedded int // content hashes embedded now
	Calls    int
	Tokens   int
}

// FillVectors embeds the content of every memory of project ("" for every
// project) that has no
// vector of the endpoint's model, a batch at a time, storing each batch
// as soon as it is made: it may be stopped at any point and run again to
// resume where it stopped. progress, when set, is called after each batch
// with the hashes done and to do. It returns what was done even on error
// (the budget reached, the endpoint down).
func (e *Engine) FillVectors(ctx context.Context, project string, progress func(done, total int)) (FillReport, error) {
	var rep FillReport
	if e.embedder == nil {
		return rep, cairn.Errorf(cairn.EINVALID, "no embeddings endpoint is configured: set embeddings.base_url and embeddings.model")
	}
	vs, ok := e.vectorStore()
	if !ok {
		return rep, cairn.Errorf(cairn.EINVALID, "this store keeps no vectors")
	}
	if project != "" && !cairn.ValidProject(project) {
		return rep, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	rep.Model = e.embedder.Model()
	n, err := vs.CountVectors(ctx, rep.Model, project)
	if err != nil {
		return rep, err
	}
	rep.Memories, rep.Before = n.Memories, n.Embedded
	total := n.Memories - n.Embedded // an upper bound: memories may share content
	after := ""
	batch := max(1, e.embedder.BatchSize())
	defer func() {
		if rep.Embedded > 0 {
			e.invalidateVectors()
		}
	}()
	for {
		page, err := vs.FindUnembedded(ctx, rep.Model, project, after, batch)
		if err != nil || len(page) == 0 {
			return rep, err
		}
		texts := make([]string, len(page))
		for i, ht := range page {
			texts[i] = ht.Text
		}
		vecs, u, err := e.embedder.Embed(ctx, texts)
		rep.Calls += u.Calls
		rep.Tokens += u.Tokens
		if err != nil {
			return rep, err
		}
		hv := make([]cairn.HashVector, len(page))
		for i, ht := range page {
			hv[i] = cairn.HashVector{Hash: ht.Hash, Vector: vecs[i]}
		}
		if err := vs.PutVectors(ctx, rep.Model, hv); err != nil {
			return rep, err
		}
		rep.Embedded += len(page)
		after = page[len(page)-1].Hash
		if progress != nil {
			progress(rep.Embedded, max(total, rep.Embedded))
		}
	}
}

// VectorCoverage says how many memories of project have a vector of the
// endpoint's model. ok is false when the engine has no endpoint or its
// store keeps no vectors.
func (e *Engine) VectorCoverage(ctx context.Context, project string) (n cairn.VectorCount, model string, ok bool, err error) {
	vs, isVS := e.vectorStore()
	if e.embedder == nil || !isVS {
		return n, "", false, nil
	}
	model = e.embedder.Model()
	n, err = vs.CountVectors(ctx, model, project)
	return n, model, err == nil, err
}
