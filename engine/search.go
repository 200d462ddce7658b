package engine

import (
	"cmp"
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"
	"unicode"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
	"github.com/cairn-dev/cairn/rank"
)

// Candidate caps. Search finds the best-scoring documents for the query's
// terms (index.Scorer.TopMore, which skips the postings of documents that
// cannot be among them), then loads at most a few candidates per wanted
// hit from the store to apply filters and salience. When filters reject
// too many, it asks for more, growing the cap, until it has enough or none
// are left.
const (
	minCandidates    = 20
	candidatesPerHit = 2
	candidateGrowth  = 4
)

// Search implements cairn.Service: in q.Mode, by default hybrid when the
// engine has an embeddings endpoint and lexical otherwise (see
// SearchRetrieval, which also says how the search was ranked).
func (e *Engine) Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error) {
	hits, _, err := e.SearchRetrieval(ctx, q)
	return hits, err
}

// hit is a hit as the engine ranks it: every part of its score at hand,
// the explanation given out only when asked (see publicHits).
type hit struct {
	cairn.Hit
	cairn.HitExplain
}

// publicHits are hits as callers get them: with their explanation when
// explain, its salience factor by the engine's weights.
func (e *Engine) publicHits(hits []hit, explain bool) []cairn.Hit {
	if len(hits) == 0 {
		return nil
	}
	out := make([]cairn.Hit, len(hits))
	for i := range hits {
		out[i] = hits[i].Hit
		if explain {
			x := hits[i].HitExplain
			x.SalienceFactor = rank.Factor(hits[i].Salience, e.weights)
			out[i].Explain = &x
		}
	}
	return out
}

// searchWith is Search; exhaustive makes it score every posting (see
// index.Scorer.Exhaustive), for comparisons.
// searchWith is Search; exhaustive makes it score every posting (see
// index.Scorer.Exhaustive), for comparisons.
func (e *Engine) searchWith(ctx context.Context, q cairn.Query, exhaustive bool) ([]hit, error) {
	if !cairn.ValidProject(q.Project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", q.Project)
	}
	if strings.TrimSpace(q.Text) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the search query is empty; give the words to look for")
	}
	if err := e.checkQuery(&q); err != nil {
		return nil, err
	}
	terms, kinds := queryWeights(q.Text)
	if len(terms) == 0 {
		return nil, nil
	}
	key, version, cached := e.cachedRetrieval(ctx, q, exhaustive)
	if cached != nil {
		return e.finish(q, cached), nil
	}
	var got *retrieved
	err := e.indexView(ctx, func(ctx context.Context, tx cairn.Tx) error {
		var err error
		got, err = e.retrieve(ctx, tx, q, terms, kinds, true, exhaustive)
		return err
	})
	if err == nil {
		e.keepRetrieval(key, version, got)
		return e.finish(q, got), nil
	}
	var hits []hit
	if err == errStaleIndex {
		// An index made by an older cairn: rebuild it once, then search.
		// A store that cannot be written is searched as it is.
		stale := true
		if e.rebuildStale(ctx, q) == nil {
			stale = false
		}
		err = e.store.View(ctx, func(tx cairn.Tx) error {
			r, err := e.retrieve(ctx, tx, q, terms, kinds, !stale, exhaustive)
			if err == nil {
				hits = e.finish(q, r)
			}
			return err
		})
	}
	return hits, err
}

// errStaleIndex: a partition's postings were made by other text analysis
// rules than this binary's (see IndexVersion).
var errStaleIndex = errors.New("the search index was made by another version of cairn")

// rebuildStale rebuilds the partitions q reads whose postings are stale.
func (e *Engine) rebuildStale(ctx context.Context, q cairn.Query) error {
	return e.store.Update(ctx, func(tx cairn.Tx) error {
		b := e.newIndexBatch()
		for _, name := range []string{q.Project, ""} {
			if _, err := b.part(ctx, tx, name); err != nil {
				return err
			}
		}
		return nil
	})
}

type partScore struct {
	name   string
	scorer *index.Scorer
	// masked: the scorer skips the documents expired before the
	// search's day (skipExpired).
	masked bool
}

type candidate struct {
	part string
	sc   index.Scored
}

// retrieved is what a search read from the store: the hits that pass
// its filters, before they are ranked (which depends on the clock), the
// idf-weighted query terms by partition, the query terms each scored hit
// holds, and the clock readings for which the filters decide the same
// (see expiryWindow). It is not changed once made, but for the analyses
// termsOf keeps.
type retrieved struct {
	kept []hit
	idfs map[string][]index.Query
	// typical is the prompt's typicality of its project against the
	// database's other projects (see typicality), when typicalOK: a
	// prompt only, in a database that holds other projects.
	typical   float64
	typicalOK bool
	// common[part][i] is the commonness of idfs[part][i]'s term (see
	// termCommonness).
	common map[string][]float64
	// params are the BM25 parameters the search scored with: Strength
	// measures length against the same pivot (index.Params.Density).
	params index.Params
	window expiryWindow
	// slots[part][i] is the bit in index.Scored.Held of idfs[part][i]'s
	// term, or -1 when the partition has no postings for it (no memory
	// holds it); a partition has no slots when its scorer's bits cannot
	// say which query terms a memory holds (see termSlots).
	slots map[string][]int8
	// held are the bits of the query terms each scored memory holds, by
	// the scorer of the partition it came from.
	held map[*cairn.Memory]heldTerms

	mu       sync.Mutex
	analysed map[analysisKey]termCounts // query terms in kept memories, once analysed
}

// heldTerms is index.Scored.Held and Len of a memory and the partition it
// was scored in.
type heldTerms struct {
	part string
	bits uint64
	dl   byte
}

// analysisKey names the analysis of a memory's indexed text (whole,
// without its title, or its title alone).
type analysisKey struct {
	m    *cairn.Memory
	text textPart
}

// textPart is which of a memory's indexed text an analysis is of.
type textPart uint8

const (
	wholeText textPart = iota
	withoutTitle
	titleOnly
)

// termCounts is the analysis of a text as a search's ranking reads it:
// tf[i] is how often the i-th query term of the memory's partition
// (retrieved.idfs) occurs in it, and dl the text's length in terms. The
// counts of the other terms are never read, and kept searches hold them
// as long as they are kept: a map of every term of each memory ranked
// was 3% of the bytes a request allocates at 1,000,000 memories and most
// of what the kept searches held.
type termCounts struct {
	tf []int32
	dl int
}

// termSlots returns the bit in index.Scored.Held of each of qs's terms in
// a partition made by the rules of IndexVersion, or nil when the bits
// cannot say which terms a memory holds: the postings tps were added to
// the scorer first, every one (AddPostings adds any prepared postings of
// a partition with documents), so the i-th has bit i while there are no
// more than index.HeldTerms of them. A document holds a query term
// exactly when its text's analysis has the term (as termsOf finds it):
// the terms cairn adds to a document besides its text's (typeTerm,
// refTerms) start with '*', which no query term holds.
func termSlots(qs []index.Query, tps []*index.Postings, analyzer int) []int8 {
	if analyzer != IndexVersion || len(tps) > index.HeldTerms {
		return nil
	}
	slots := make([]int8, len(qs))
	for i, q := range qs {
		slots[i] = -1
		for j, p := range tps {
			if p.Term == q.Term {
				slots[i] = int8(j)
				break
			}
		}
	}
	return slots
}

// retrieve reads the hits of q from tx; finish ranks them.
func (e *Engine) retrieve(ctx context.Context, tx cairn.Tx, q cairn.Query, terms []index.Query, kinds wordKinds, checkAnalyzer, exhaustive bool) (*retrieved, error) {
	parts := []string{q.Project}
	if !q.NoGlobal {
		parts = append(parts, "")
	}
	memo := docMemo{}
	idfs := map[string][]index.Query{} // partition → query terms, weighted by idf
	common := map[string][]float64{}
	slots := map[string][]int8{}
	var scored []partScore
	var ownDF map[string]int64 // the project's document frequencies, for typicality
	var ownDocs int64
	var masked time.Time // the latest day before which expired documents were skipped
	defer func() {
		for _, ps := range scored {
			ps.scorer.Release()
		}
	}()
	for _, name := range parts {
		stats, whole, err := e.searchStats(ctx, tx, name)
		if err != nil {
			return nil, err
		}
		if stats.Docs == 0 {
			continue
		}
		if checkAnalyzer && stats.Analyzer != IndexVersion {
			return nil, errStaleIndex
		}
		stats, dead, err := e.searchDead(ctx, tx, stats, whole)
		if err != nil {
			return nil, err
		}
		if len(q.Types) > 0 && stats.Analyzer == IndexVersion {
			if dead, err = e.skipOtherTypes(ctx, tx, stats, dead, q.Types); err != nil {
				return nil, err
			}
		}
		var day time.Time
		if dead, day, err = e.skipExpired(ctx, tx, stats, dead, q.Now); err != nil {
			return nil, err
		}
		tps, err := e.preparedPostings(ctx, tx, stats, termNames(terms))
		if err != nil {
			return nil, err
		}
		if len(tps) == 0 {
			continue
		}
		if day.After(masked) {
			masked = day
		}
		idfs[name] = termIDFs(terms, tps, stats.Docs, kinds, q.Prompt)
		if q.Prompt && name == q.Project {
			ownDocs, ownDF = stats.Docs, make(map[string]int64, len(tps))
			for _, p := range tps {
				ownDF[p.Term] = p.DF
			}
		}
		common[name] = termCommonness(terms, tps, stats.Docs)
		if sl := termSlots(idfs[name], tps, stats.Analyzer); sl != nil {
			slots[name] = sl
		}
		s := &index.Scorer{Params: e.bm25, Stats: stats, Dead: dead, CoordShare: e.ranking.Coverage, Exhaustive: exhaustive}
		if s.CoordShare > 0 {
			s.Coord = queryWeight(terms, tps, stats.Docs)
		}
		for _, p := range tps {
			s.AddPostings(p, scoreWeight(terms, p.Term, p.DF, stats.Docs))
		}
		scored = append(scored, partScore{name: name, scorer: s, masked: !day.IsZero()})
	}
	if len(scored) == 0 {
		return &retrieved{window: openWindow()}, nil
	}
	if e.feedback.Terms > 0 && e.feedback.Weight > 0 && !q.NoFeedback {
		if err := e.expand(ctx, tx, memo, q, scored, termNames(terms)); err != nil {
			return nil, err
		}
	}
	k := max(minCandidates, q.Limit*candidatesPerHit)
	var kept []hit
	var held map[*cairn.Memory]heldTerms
	tops := make([][]index.Scored, len(scored))
	for {
		exhausted := true
		n := 0
		for i, ps := range scored {
			top, more, err := e.liveTop(ctx, tx, memo, q, ps, k)
			if err != nil {
				return nil, err
			}
			if more {
				exhausted = false
			}
			tops[i] = top
			n += len(top)
		}
		cands := make([]candidate, 0, n)
		for i, ps := range scored {
			for _, s := range tops[i] {
				cands = append(cands, candidate{part: ps.name, sc: s})
			}
		}
		var err error
		held = make(map[*cairn.Memory]heldTerms, len(cands))
		if kept, err = e.loadCandidates(ctx, tx, memo, q, cands, held); err != nil {
			return nil, err
		}
		if len(kept) >= q.Limit || exhausted {
			break
		}
		k *= candidateGrowth
	}
	kept, err := e.lendToNeighbours(ctx, tx, memo, q, kept, held)
	if err != nil {
		return nil, err
	}
	r := &retrieved{kept: kept, idfs: idfs, common: common, params: e.bm25, slots: slots, held: held, window: memo.window(q.Now)}
	if r.window.from.Before(masked) {
		// The documents skipped as expired were not read: the search
		// holds from the start of the day before which they expired.
		r.window.from = masked
	}
	if ownDF != nil && len(kept) > 0 {
		rest, nRest, err := e.restDocFreqs(ctx, tx, q.Project, typicalityTerms(terms, kinds))
		if err != nil {
			return nil, err
		}
		r.typical, r.typicalOK = typicality(terms, kinds, q.Prompt, ownDF, ownDocs, rest, nRest)
	}
	return r, nil
}

// restDocFreqs returns how many memories of the database's projects other
// than project hold each of terms, summed, and how many memories those
// projects hold: the background against which typicality weighs a
// prompt. Global-scope memories belong to every project and are left out.
func (e *Engine) restDocFreqs(ctx context.Context, tx cairn.Tx, project string, terms []string) (map[string]int64, int64, error) {
	parts, err := e.partitionDocs(ctx, tx)
	if err != nil {
		return nil, 0, err
	}
	names := make([]string, 0, len(parts))
	for name := range parts {
		if name != project && name != "" {
			names = append(names, name)
		}
	}
	var n int64
	for _, name := range names {
		n += parts[name]
	}
	rest, err := tx.DocFreqSums(ctx, names, terms)
	return rest, n, err
}

// rankingHits is working memory of finish: the hits it ranks, of which it
// returns the best. Slices beyond maxPooledHits are not kept.
var rankingHits = sync.Pool{New: func() any { return new([]hit) }}

const maxPooledHits = 4096

// finish ranks the hits r retrieved for q at q.Now. r is not changed:
// the hits returned are copies, with copies of their memories.
func (e *Engine) finish(q cairn.Query, r *retrieved) []hit {
	if len(r.kept) == 0 {
		return nil
	}
	periods, phrases := rank.QueryPeriods(q.Text, q.Now)
	// Every hit kept is ranked, in working memory; only the best q.Limit
	// are copied out.
	work := rankingHits.Get().(*[]hit)
	*work = append((*work)[:0], r.kept...)
	hits := slices.Clone(e.rankHits(q, *work, periods))
	clear(*work) // the pool holds no memories
	if cap(*work) <= maxPooledHits {
		rankingHits.Put(work)
	}
	r.setStrengths(hits, dateTerms(phrases))
	for i := range hits {
		m := *hits[i].Memory
		m.Tags, m.FileRefs = slices.Clone(m.Tags), slices.Clone(m.FileRefs)
		hits[i].Memory = &m
	}
	return hits
}

// dateTerms is the set of index terms of the phrases that name a date.
func dateTerms(phrases []string) map[string]bool {
	if len(phrases) == 0 {
		return nil
	}
	out := map[string]bool{}
	var buf []string
	for _, p := range phrases {
		buf, _ = lexical.Analyze(p, buf[:0])
		for _, t := range buf {
			out[t] = true
		}
	}
	return out
}

// setStrengths sets each hit's Strength: the share of its partition's
// idf-weighted query terms that the memory holds (see cairn.Hit.Strength),
// where a term counts
//   - by its commonness (termCommonness): a word most memories hold is
//     held at a fifth of its weight at least;
//   - for a memory longer than the ranking's length pivot, by how densely
//     the memory holds it (index.Params.Density), as BM25 measures it, so
//     that a long text does not hold a query by holding each of its words
//     somewhere;
//   - by the memory's content alone when its title is one that other hits
//     share (a boilerplate title, "Session summary", says nothing about
//     any one of them);
//   - not at all when the memory holds only words that most memories
//     hold (its Strength is then 0): the project's name or a folder most
//     files sit in says nothing about which memory a prompt is about;
//   - in full for the words of a date the query names (dated), when the
//     memory was written in that period (DateFactor above 1), whatever its
//     text says: "what did we change on 13 October" is matched in full by
//     a memory of 13 October about the change.
//
// A prompt whose typicality was measured holds the project's memories in
// proportion to how likely it is to be the project's
// (cairn.PromptBelongs): their Strength is multiplied by it, and each
// hit's explanation carries the typicality. Global-scope memories, which
// belong to every project, keep theirs.
//
// The sums run in query order, so that the same search gives the same
// figure to the last bit.
func (r *retrieved) setStrengths(hits []hit, dated map[string]bool) {
	idfs := r.idfs
	shared := sharedTitles(hits)
	for i := range hits {
		h := &hits[i]
		if r.typicalOK {
			h.Typicality = r.typical
		}
		if h.Match <= 0 {
			continue
		}
		part := partitionOf(h.Memory)
		w := idfs[part]
		total := 0.0
		for _, q := range w {
			total += q.Weight
		}
		if total <= 0 {
			continue
		}
		common := r.common[part]
		held := 0.0
		distinct := false // holds a word fewer than half the memories hold
		inPeriod := h.DateFactor > 1
		bits, slots, dl, ok := r.heldBits(h.Memory)
		short := ok && r.params.Density(1, index.DequantLen(dl)) == 1
		noTitle := shared != nil && shared[i]
		if noTitle && short && !titleHolds(r.termsOf(h.Memory, titleOnly), w, slots, bits) {
			noTitle = false // its content holds all it holds
		}
		if short && !noTitle {
			// The terms its scorer found it holds: the same as its
			// text's analysis (see termSlots), without analysing it.
			for i, q := range w {
				if inPeriod && dated[q.Term] {
					held += q.Weight
					distinct = true
				} else if s := slots[i]; s >= 0 && bits&(1<<s) != 0 {
					held += q.Weight * common[i]
					distinct = distinct || common[i] == 1 && q.Weight > 0
				}
			}
		} else {
			part := wholeText
			if noTitle {
				part = withoutTitle
			}
			tc := r.termsOf(h.Memory, part)
			for i, q := range w {
				if inPeriod && dated[q.Term] {
					held += q.Weight
					distinct = true
				} else if d := r.params.Density(int(tc.tf[i]), float64(tc.dl)); d > 0 {
					held += q.Weight * common[i] * d
					distinct = distinct || common[i] == 1 && q.Weight > 0
				}
			}
		}
		if distinct {
			h.Strength = min(1, held/total)
			if r.typicalOK && part != "" {
				h.Strength *= cairn.PromptBelongs(r.typical)
			}
		}
	}
}

// titleHolds reports whether a title, analysed, holds a term of w that
// bits say its memory holds (see heldBits).
func titleHolds(title termCounts, w []index.Query, slots []int8, bits uint64) bool {
	for i := range w {
		if s := slots[i]; s >= 0 && bits&(1<<s) != 0 && title.tf[i] > 0 {
			return true
		}
	}
	return false
}

// sharedTitles reports, for each hit, whether another hit bears its
// title of its own (see cairn.SameOwnTitle); nil when none does.
func sharedTitles(hits []hit) []bool {
	var explicit, shared []bool
	for i, h := range hits {
		if !cairn.HasOwnTitle(h.Memory) {
			continue
		}
		if explicit == nil {
			explicit = make([]bool, len(hits))
		}
		explicit[i] = true
		for j := range i {
			if explicit[j] && cairn.SameOwnTitle(h.Memory, hits[j].Memory) {
				if shared == nil {
					shared = make([]bool, len(hits))
				}
				shared[i], shared[j] = true, true
			}
		}
	}
	return shared
}

// heldBits returns the bits of the query terms m holds, as its scorer
// found them, the bit of each of its partition's idf-weighted terms, and
// m's quantised length; ok is false when the scorer cannot say (m was not
// scored, or scored in a partition without slots).
func (r *retrieved) heldBits(m *cairn.Memory) (bits uint64, slots []int8, dl byte, ok bool) {
	ht, ok := r.held[m]
	if !ok {
		return 0, nil, 0, false
	}
	part := partitionOf(m)
	slots = r.slots[part]
	if ht.part != part || slots == nil {
		return 0, nil, 0, false
	}
	return ht.bits, slots, ht.dl, true
}

// analysisBufs are the term lists termsOf analyses a text into, counts
// and lets go: a list made for each of a ranking's analyses was 4% of the
// bytes the failure hook's block allocated at 1,000,000 memories. Lists
// longer than maxPooledTerms are not kept.
var analysisBufs = sync.Pool{New: func() any { return new([]string) }}

const maxPooledTerms = 4096

// termsOf returns the analysis of part of m's indexed text, m one of the
// memories r kept, analysing it once: the counts of the query terms of
// m's partition (termCounts).
func (r *retrieved) termsOf(m *cairn.Memory, part textPart) termCounts {
	key := analysisKey{m, part}
	r.mu.Lock()
	tc, ok := r.analysed[key]
	r.mu.Unlock()
	if ok {
		return tc
	}
	var text string
	switch part {
	case wholeText:
		text = indexedText(m)
	case withoutTitle:
		c := *m
		c.Title = ""
		text = indexedText(&c)
	case titleOnly:
		text = m.Title
	}
	bp := analysisBufs.Get().(*[]string)
	buf, dl := lexical.Analyze(text, (*bp)[:0])
	w := r.idfs[partitionOf(m)]
	tc = termCounts{tf: make([]int32, len(w)), dl: dl}
	for _, t := range buf {
		for i, q := range w {
			if q.Term == t {
				tc.tf[i]++
			}
		}
	}
	clear(buf) // the pool holds no text
	if *bp = buf[:0]; cap(buf) <= maxPooledTerms {
		analysisBufs.Put(bp)
	}
	r.mu.Lock()
	if r.analysed == nil {
		r.analysed = map[analysisKey]termCounts{}
	}
	r.analysed[key] = tc
	r.mu.Unlock()
	return tc
}

// loadCandidates fetches the candidates' memories and keeps those that pass
// the query's filters, recording in held the terms each holds.
func (e *Engine) loadCandidates(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, cands []candidate, held map[*cairn.Memory]heldTerms) ([]hit, error) {
	byPart := map[string][]int64{}
	for _, c := range cands {
		byPart[c.part] = append(byPart[c.part], c.sc.Doc)
	}
	// The candidates in the order of their partition and document, the
	// later first where one is there twice, to find a memory's score: a
	// tenth of the bytes of a map of them, which a search made each time.
	byDoc := make([]int32, len(cands))
	for i := range byDoc {
		byDoc[i] = int32(i)
	}
	slices.SortFunc(byDoc, func(a, b int32) int {
		x, y := &cands[a], &cands[b]
		if c := strings.Compare(x.part, y.part); c != 0 {
			return c
		}
		if c := cmp.Compare(x.sc.Doc, y.sc.Doc); c != 0 {
			return c
		}
		return cmp.Compare(b, a)
	})
	score := func(part string, doc int64) index.Scored {
		i, ok := slices.BinarySearchFunc(byDoc, partDoc{part, doc}, func(c int32, t partDoc) int {
			if c := strings.Compare(cands[c].part, t.part); c != 0 {
				return c
			}
			return cmp.Compare(cands[c].sc.Doc, t.doc)
		})
		if !ok {
			return index.Scored{}
		}
		return cands[byDoc[i]].sc
	}
	out := make([]hit, 0, len(cands))
	for part, docs := range byPart {
		ms, err := memo.find(ctx, tx, part, docs)
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			if !inPartition(m, part, q.Project) {
				continue // isolation is absolute, whatever the index says
			}
			if !passes(m, q) {
				continue
			}
			sc := score(part, m.DocNum)
			out = append(out, hit{Hit: cairn.Hit{Memory: m}, HitExplain: cairn.HitExplain{Lexical: sc.BM25, Coverage: sc.Coverage, Match: sc.Score}})
			held[m] = heldTerms{part: part, bits: sc.Held, dl: sc.Len}
		}
	}
	return out, nil
}

// partDoc is a document of a partition.
type partDoc struct {
	part string
	doc  int64
}

func passes(m *cairn.Memory, q cairn.Query) bool {
	if !m.ExpiresAt.IsZero() && !q.Now.Before(m.ExpiresAt) {
		return false
	}
	if q.ExcludeSuperseded && m.SupersededBy != "" {
		return false
	}
	if len(q.Types) > 0 && !slices.Contains(q.Types, m.Type) {
		return false
	}
	for _, t := range q.Tags {
		if !m.HasTag(t) {
			return false
		}
	}
	if !q.After.IsZero() && m.CreatedAt.Before(q.After) {
		return false
	}
	if !q.Before.IsZero() && !m.CreatedAt.Before(q.Before) {
		return false
	}
	if q.ExcludeSession != "" && m.SessionID == q.ExcludeSession {
		return false
	}
	if q.Agent != "" && m.Agent != q.Agent {
		return false
	}
	return true
}

// rankHits combines the parts of each hit's score (see cairn.Hit), with
// the periods the query names, and returns the best q.Limit.
func (e *Engine) rankHits(q cairn.Query, hits []hit, periods []rank.Period) []hit {
	best := 0.0
	for i := range hits {
		h := &hits[i]
		h.DateFactor = 1
		if len(periods) > 0 && rank.InPeriods(periods, h.Memory.CreatedAt) {
			h.DateFactor = 1 + e.ranking.DateBoost
		}
		h.Relevance = (h.Match + h.Lent) * h.DateFactor
		best = max(best, h.Relevance)
	}
	if best <= 0 {
		best = 1
	}
	for i := range hits {
		h := &hits[i]
		h.Relevance /= best
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
		if !a.Memory.CreatedAt.Equal(b.Memory.CreatedAt) {
			return a.Memory.CreatedAt.After(b.Memory.CreatedAt)
		}
		return a.Memory.ID < b.Memory.ID
	})
	if len(hits) > q.Limit {
		hits = hits[:q.Limit]
	}
	return hits
}

// Feedback configures pseudo-relevance feedback: the best Docs documents of
// the first pass lend their most telling Terms (words frequent in those
// documents, rare in the partition) to the query, each weighted up to
// Weight relative to a query term. It is off unless an Engine is given
// one: measured on the LoCoMo dev split (format v2), it lowers hit@1 by
// 3 to 7 points and MRR@10 by 2 to 4 points for every setting tried, and
// does not raise R@10. Only words (letters, no digits or joiners) are
// lent.
type Feedback struct {
	Docs   int
	Terms  int
	Weight float64
}

// feedbackMaxDFShare: a feedback term must be in at most 100 documents or
// 1/feedbackMaxDFShare of the partition, whichever is more, so that
// feedback reads only short postings.
const feedbackMaxDFShare = 20

// DefaultFeedback is the feedback setting that measured best when it is
// wanted.
func DefaultFeedback() Feedback { return Feedback{Docs: 5, Terms: 8, Weight: 0.4} }

// expand adds feedback terms to every partition's scores.
func (e *Engine) expand(ctx context.Context, tx cairn.Tx, memo docMemo, q cairn.Query, scored []partScore, terms []string) error {
	inQuery := map[string]bool{}
	for _, t := range terms {
		inQuery[t] = true
	}
	for _, ps := range scored {
		top, _, err := e.liveTop(ctx, tx, memo, q, ps, e.feedback.Docs)
		if err != nil {
			return err
		}
		if len(top) == 0 {
			continue
		}
		docs := make([]int64, len(top))
		best := top[0].Score
		wdoc := map[int64]float64{}
		for i, s := range top {
			docs[i] = s.Doc
			wdoc[s.Doc] = s.Score / best
		}
		ms, err := memo.find(ctx, tx, ps.name, docs)
		if err != nil {
			return err
		}
		weight := map[string]float64{}
		var buf []string
		for _, m := range ms {
			var dl int
			buf, dl = lexical.Analyze(indexedText(m), buf[:0])
			if dl == 0 {
				continue
			}
			tf := map[string]int{}
			for _, t := range buf {
				tf[t]++
			}
			for t, n := range tf {
				if inQuery[t] || !isWord(t) {
					continue
				}
				weight[t] += wdoc[m.DocNum] * float64(n) / float64(dl)
			}
		}
		var cands []weightedTerm
		for t, w := range weight {
			cands = append(cands, weightedTerm{t, w})
		}
		sortWeighted(cands)
		if len(cands) > e.feedback.Terms*2 {
			cands = cands[:e.feedback.Terms*2]
		}
		names := make([]string, len(cands))
		for i, c := range cands {
			names[i] = c.t
		}
		dfs, err := e.docFreqs(ctx, tx, ps.scorer.Stats, names)
		if err != nil {
			return err
		}
		// Weight by idf. A term found in one document says nothing new, and
		// a common one costs much to score and says little.
		n := ps.scorer.Stats.Docs
		for i := range cands {
			df := dfs[cands[i].t]
			if df < 2 || df > max(100, n/feedbackMaxDFShare) {
				cands[i].w = 0
				continue
			}
			cands[i].w *= index.IDF(n, df)
		}
		sortWeighted(cands)
		for len(cands) > 0 && cands[len(cands)-1].w <= 0 {
			cands = cands[:len(cands)-1]
		}
		if len(cands) > e.feedback.Terms {
			cands = cands[:e.feedback.Terms]
		}
		if len(cands) == 0 {
			continue
		}
		names = names[:0]
		for _, c := range cands {
			names = append(names, c.t)
		}
		tps, err := e.preparedPostings(ctx, tx, ps.scorer.Stats, names)
		if err != nil {
			return err
		}
		byTerm := map[string]*index.Postings{}
		for _, p := range tps {
			byTerm[p.Term] = p
		}
		maxw := cands[0].w
		for _, c := range cands {
			if p := byTerm[c.t]; p != nil {
				ps.scorer.AddExpansionPostings(p, e.feedback.Weight*c.w/maxw)
			}
		}
	}
	return nil
}

// docMemo keeps the memories a search has loaded, by partition and
// document, so that feedback and ranking read each row once.
type docMemo map[string]map[int64]*cairn.Memory

func (dm docMemo) find(ctx context.Context, tx cairn.Tx, part string, docs []int64) ([]*cairn.Memory, error) {
	got := dm[part]
	if got == nil {
		got = make(map[int64]*cairn.Memory, len(docs))
		dm[part] = got
	}
	var missing []int64
	for i, d := range docs {
		if _, ok := got[d]; !ok {
			if missing == nil {
				missing = make([]int64, 0, len(docs)-i)
			}
			missing = append(missing, d)
		}
	}
	if len(missing) > 0 {
		ms, err := tx.FindMemoriesByDoc(ctx, part, missing)
		if err != nil {
			return nil, err
		}
		for _, d := range missing {
			got[d] = nil // no such memory (deleted)
		}
		for _, m := range ms {
			got[m.DocNum] = m
		}
	}
	out := make([]*cairn.Memory, 0, len(docs))
	for _, d := range docs {
		if m := got[d]; m != nil {
			out = append(out, m)
		}
	}
	return out, nil
}

// weightedTerm is a candidate feedback term and its weight.
type weightedTerm struct {
	t string
	w float64
}

// sortWeighted orders terms by weight, heaviest first, then by term.
func sortWeighted(ts []weightedTerm) {
	sort.Slice(ts, func(i, j int) bool {
		if ts[i].w != ts[j].w {
			return ts[i].w > ts[j].w
		}
		return ts[i].t < ts[j].t
	})
}

// isWord reports whether a term is a word: letters only, no digits,
// joiners or other characters (times, versions and ids are not lent).
func isWord(t string) bool {
	for _, r := range t {
		if !unicode.IsLetter(r) {
			return false
		}
	}
	return t != ""
}

// inPartition reports whether m may be returned from partition part to a
// search of project: the global partition holds global-scope memories
// only, a project's partition that project's only.
func inPartition(m *cairn.Memory, part, project string) bool {
	if part == "" {
		return m.Scope == cairn.ScopeGlobal
	}
	return m.Project == project
}
