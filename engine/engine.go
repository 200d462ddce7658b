// Package engine implements cairn's memory service over any cairn.Store.
// Every rule that must behave the same on all backends lives here:
// validation, deduplication and key upserts, search-index maintenance,
// ranking, and import.
//
// Its files by role, one concern each:
//
//	memories   memories.go (add, find, update, delete), validate.go,
//	           namespace.go, flag.go, neardup.go, conflict.go (the rules
//	           of a write), import.go, ingest.go, lifecycle.go,
//	           maintain_due.go, iteration.go, types.go, overview.go,
//	           activity.go (uses and the activity log)
//	search     search.go, query.go, neighbours.go, searchcache.go,
//	           typemask.go, indexing.go, cache.go (postings kept in memory)
//	context    context.go (what a block chooses from), filerefs.go (the
//	           memories about files, and those that carry a tag, from the
//	           index), parallel.go (other sessions' news),
//	           shown.go (what each session was shown)
//	settings   settings.go (each project's stored settings, whose type
//	           policies every write of the project applies)
//	events     events.go
//	tokens     tokens.go
//	vectors    vectors.go
//
// What is shown to an agent is decided by package recall, over the
// candidates ContextCandidates reads.
//
// An Engine is safe for concurrent use. Each public method runs in one
// store transaction, so it is atomic and, across processes sharing a
// store, serialised with other writes.
package engine

import (
	"crypto/rand"
	"encoding/binary"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/rank"
	"github.com/cairn-dev/cairn/redact"
)

// Options configure an Engine. A nil *Options means defaults.
type Options struct {
	// Settings are those of a project without stored settings (see
	// SetProjectSettings); nil means cairn.DefaultSettings().
	Settings *cairn.Settings
	// Policies are the type policies of a project without stored
	// settings; nil means those of Settings.
	Policies cairn.Policies
	// Now is the clock; nil means time.Now. Recency, TTL and timestamps
	// all read it, so a fixed clock makes runs reproducible.
	Now func() time.Time
	// Weights tune salience; the zero value means rank.DefaultWeights().
	Weights rank.Weights
	// BM25 parameters; the zero value means index.DefaultParams().
	BM25 index.Params
	// Ranking tunes the parts of a search score beyond BM25 and salience;
	// the zero value means DefaultRanking().
	Ranking Ranking
	// Feedback turns pseudo-relevance feedback on; the zero value leaves
	// it off (see Feedback for why).
	Feedback Feedback
	// CacheBytes, when positive, keeps up to this many bytes of postings
	// in memory between searches, and recent searches' hits before
	// ranking while the store reports the same rows (or data) version
	// (searchcache.go): for long-lived processes.
	CacheBytes int64
	// Redact is applied to every text field before it is stored, on
	// every write path (memories, iteration summaries, session names in
	// the activity log, the pending state of a transcript's ingest); nil
	// means redact.Text, cairn's secret scanner.
	Redact func(string) string
	// EventPoll is how often, while anyone subscribes to events, the
	// store is checked for writes; 0 means DefaultEventPoll.
	EventPoll time.Duration
	// Embedder, when set, is the embeddings endpoint: queries are then
	// ranked in hybrid mode by default, and FillVectors embeds memories.
	// Writes never call it.
	Embedder Embedder
	// Vectors tune vector retrieval; zero fields mean
	// DefaultVectorSettings.
	Vectors VectorSettings
}

// The contracts of the root package that the engine implements.
var (
	_ cairn.Service               = (*Engine)(nil)
	_ cairn.SearchService         = (*Engine)(nil)
	_ cairn.SupersedeService      = (*Engine)(nil)
	_ cairn.TypeService           = (*Engine)(nil)
	_ cairn.Clock                 = (*Engine)(nil)
	_ cairn.VectorCoverageService = (*Engine)(nil)
	_ cairn.ContextService        = (*Engine)(nil)
	_ cairn.ActivityService       = (*Engine)(nil)
	_ cairn.LifecycleService      = (*Engine)(nil)
	_ cairn.ImportService         = (*Engine)(nil)
	_ cairn.OverviewService       = (*Engine)(nil)
	_ cairn.UseRecorder           = (*Engine)(nil)
)

// Engine is the memory service.
type Engine struct {
	store    cairn.Store
	policies cairn.Policies
	now      func() time.Time
	weights  rank.Weights
	ranking  Ranking
	bm25     index.Params
	redact   func(string) string
	feedback Feedback
	cache    *postingsCache
	events   *feed // shared by the engines derived from this one
	embedder Embedder
	vecs     VectorSettings
	vstate   *vectorState    // shared by the engines derived from this one
	settings *settingsCache  // shared by the engines derived from this one
	own      *cairn.Settings // of a project without stored settings
	ids      *idGen
	pending  *pendingShown // shared by the engines derived from this one
	// compacting holds the partitions a cleanup compacts in steps; shared
	// by the engines derived from this one.
	compacting *stepCompactions
	// project, when set, bounds every method that takes a memory id to
	// that project; see WithProject.
	project string
}

// New returns an Engine over store. The caller keeps ownership of store.
func New(store cairn.Store, opts *Options) *Engine {
	if opts == nil {
		opts = &Options{}
	}
	e := &Engine{store: store, policies: opts.Policies, now: opts.Now, ids: &idGen{}, pending: &pendingShown{},
		weights: opts.Weights, ranking: opts.Ranking, bm25: opts.BM25, redact: opts.Redact, feedback: opts.Feedback,
		events: newFeed(store, opts.EventPoll), embedder: opts.Embedder, vecs: opts.Vectors.withDefaults(), vstate: &vectorState{},
		settings: &settingsCache{}, compacting: &stepCompactions{}}
	e.own = opts.Settings
	if e.own == nil {
		e.own = cairn.DefaultSettings()
	}
	if e.policies == nil {
		e.policies = e.own.Policies()
	}
	if e.redact == nil {
		e.redact = redact.Text
	}
	if e.now == nil {
		e.now = time.Now
	}
	if e.weights == (rank.Weights{}) {
		e.weights = rank.DefaultWeights()
	}
	if e.ranking == (Ranking{}) {
		e.ranking = DefaultRanking()
	}
	if opts.CacheBytes > 0 {
		e.cache = newPostingsCache(opts.CacheBytes)
	}
	if e.bm25 == (index.Params{}) {
		e.bm25 = index.DefaultParams()
	}
	return e
}

// Ranking tunes the parts of a search score that BM25 and salience do not
// give (see cairn.Hit for how they combine).
type Ranking struct {
	// NeighbourShare is the share of a strong match's score lent to a
	// neighbour one document away in the same session or task;
	// NeighbourSpan how many documents away a neighbour may be (the share
	// halves with each step); NeighbourSources how many of the best
	// matches lend. See lendToNeighbours.
	NeighbourShare   float64
	NeighbourBack    float64
	NeighbourSpan    int
	NeighbourSources int
	// NeighbourCap bounds what lending lifts a neighbour longer than the
	// BM25 length pivot to: its own match and what it is lent reach at
	// most this share of its lender's match (0: no bound).
	NeighbourCap float64
	// Coverage is the share of a match's BM25 score that depends on how
	// much of the query's weight it holds: its score is BM25 × (1 −
	// Coverage + Coverage × held/total), where a memory longer than the
	// BM25 length pivot holds a word by its density (index.Params.Density).
	Coverage float64
	// DateBoost raises the relevance of memories created in a period the
	// query names by this share (see rank.QueryPeriods).
	DateBoost float64
}

// DefaultRanking is the ranking cairn searches with; README's "How search
// ranks" gives the measurements behind each value.
func DefaultRanking() Ranking {
	return Ranking{NeighbourShare: 0.4, NeighbourBack: 0.5, NeighbourSpan: 2, NeighbourSources: 5, NeighbourCap: neighbourCap, Coverage: 0.5, DateBoost: 0.25}
}

// WithClock returns an engine that shares e's store, settings and cache
// but reads the given clock (nil means time.Now).
func (e *Engine) WithClock(now func() time.Time) *Engine {
	c := *e
	c.now = now
	if c.now == nil {
		c.now = time.Now
	}
	return &c
}

// WithProject returns an engine that shares e's store, settings and cache
// but addresses memories by id within project, the rule every transport
// serving one project relies on: FindMemoryByID, SupersedeChain and the
// resolution of id prefixes see the project's memories and the
// global-scope ones only, and UpdateMemory, DeleteMemory and
// AddSuperseding change the project's own memories only. An id of another
// project's memory is ENOTFOUND, exactly as one that does not exist, and a
// prefix is ambiguous only when visible memories share it; a global memory
// of another project is readable, and changing it is EINVALID (it is
// changed from the project that holds it). "" means every project, as New
// gives. Methods that name a project themselves (Search, FindMemories …)
// are not affected.
func (e *Engine) WithProject(project string) *Engine {
	c := *e
	c.project = project
	return &c
}

// Policies returns the engine's own type policies: those of a project
// without stored settings.
func (e *Engine) Policies() cairn.Policies { return e.policies }

// Now returns the engine's clock reading, in UTC, to the millisecond (the
// precision the stores keep).
func (e *Engine) Now() time.Time { return e.now().UTC().Truncate(time.Millisecond) }

// Store returns the store the engine works on.
func (e *Engine) Store() cairn.Store { return e.store }

const crockford = "0123456789abcdefghjkmnpqrstvwxyz"

// idGen makes memory ids, unique within one engine: "mem-" and 16
// characters that sort by creation time (48 bits of milliseconds, then 32
// random bits); ids of different engines of the same millisecond collide
// with probability 2^-32. Within a millisecond, the next id is the
// random part of the previous id plus a random step of
// 2^20 to 2^20+2^23 (an import makes many ids a millisecond; random parts
// alone would collide, and small steps would make ids that differ only in
// their last digits, so that short prefixes would rarely be unique; a step
// of at least 2^20 changes the 12th digit). About 500 ids fit in a
// millisecond; more borrow the next one.
type idGen struct {
	mu     sync.Mutex
	lastMS int64
	last   uint32
}

func (g *idGen) next(now time.Time) string {
	ms := now.UnixMilli()
	g.mu.Lock()
	defer g.mu.Unlock()
	var r [8]byte
	rand.Read(r[:])
	if ms <= g.lastMS {
		ms = g.lastMS
		step := 1<<20 + binary.BigEndian.Uint32(r[4:])>>9
		if g.last > ^uint32(0)-step { // the random part ran out: borrow the next millisecond
			ms++
			g.last = binary.BigEndian.Uint32(r[:]) >> 1
		} else {
			g.last += step
		}
	} else {
		g.last = binary.BigEndian.Uint32(r[:]) >> 1 // room to count up
	}
	g.lastMS = ms
	return formatID(ms, g.last)
}

// formatID writes "mem-" and 48 bits of milliseconds and 32 bits of r in
// 16 Crockford base-32 digits.
func formatID(ms int64, r uint32) string {
	var b [10]byte
	binary.BigEndian.PutUint64(b[:8], uint64(ms)<<16)
	binary.BigEndian.PutUint32(b[6:], r)
	var sb strings.Builder
	sb.Grow(20)
	sb.WriteString("mem-")
	// 80 bits → 16 base32 digits.
	hi := binary.BigEndian.Uint64(b[:8])
	lo := uint64(binary.BigEndian.Uint16(b[8:]))
	for i := 0; i < 16; i++ {
		shift := 75 - 5*i // bit offset of this digit in the 80-bit number
		var v uint64
		if shift >= 16 {
			v = hi >> (shift - 16)
		} else {
			v = hi<<(16-shift) | lo>>shift
		}
		sb.WriteByte(crockford[v&31])
	}
	return sb.String()
}
