package cairn

import (
	"context"
	"time"
)

// Store is the contract a storage backend implements. It only stores and
// fetches: every rule (validation, dedup, confidence, ranking) lives in the
// engine, so that all backends behave the same and one conformance suite
// (package storetest) proves it.
//
// A Store is safe for concurrent use by many goroutines, and several
// processes (on several machines, for a server database) may open the same
// store at once. Updates are serialised across processes as far as they
// touch the same things: an Update that reads a project's memories, or an
// index partition's statistics or postings, or a transcript's ingest state,
// and writes from what it read, never interleaves with another Update
// touching the same project, partition or source, so read-modify-write
// loses nothing. Updates touching different ones may run in parallel (the
// PostgreSQL backend) or one at a time (SQLite serialises every Update).
// Activity IDs increase in commit order whatever the Updates touch (see
// FindEvents).
type Store interface {
	// View runs fn in a read transaction that sees one consistent snapshot.
	View(ctx context.Context, fn func(Tx) error) error
	// Update runs fn in a write transaction: everything fn writes is
	// committed together when fn returns nil, and nothing is when it returns
	// an error or the process dies. Update waits for other writers rather
	// than failing with a "locked" error; it returns EUNAVAILABLE, having
	// written nothing, only when the wait exceeds the backend's documented
	// limit or (PostgreSQL) when two Updates spanning several projects
	// deadlock and the server fails one of them.
	Update(ctx context.Context, fn func(Tx) error) error
	// Close releases the store. Transactions must not be used after it.
	Close() error

	StoreCapabilities
}

// StoreCapabilities are what a Store may do beyond the contract every
// backend keeps. Each Supports method says whether the store has the
// capability; the method it names must be called only when it does, and
// otherwise returns an EINTERNAL error (a role's getter: nil). Callers ask the Supports method,
// never the store's type, so that a store wrapped by another (a test's
// recorder, say) keeps what it can do. The conformance suite (package
// storetest) tests each capability on every backend that reports it.
type StoreCapabilities interface {
	// SupportsDataVersion reports whether DataVersion tells of writes.
	SupportsDataVersion() bool
	// DataVersion returns a number that changes whenever any process
	// sharing the store commits a write, and never decreases. A write
	// through this store changes it before Update returns; those of
	// other stores and processes soon after (the backend says how soon).
	// Caches of a long-lived process compare it to know they are still
	// valid, so a backend may also change it when it cannot tell (it lost
	// its connection): a cache then reads again.
	DataVersion(ctx context.Context) (int64, error)

	// SupportsCheckpoint reports whether Checkpoint does anything.
	SupportsCheckpoint() bool
	// Checkpoint moves what the store's log holds into its main file, so
	// that the next process opens the store quickly (SQLite's write-ahead
	// log). Writers of much data call it when they are done.
	Checkpoint(ctx context.Context) error

	// WriteRun readies the store for a run of write transactions one
	// after another (the pages of a cleanup): until end is called, the
	// backend may keep more of what they read in memory, which a
	// long-lived process otherwise leaves to its reads. Every backend
	// answers it (it may do nothing); runs may overlap, and each end must
	// be called once.
	WriteRun(ctx context.Context) (end func())

	// SupportsVectors reports whether the store keeps embeddings.
	SupportsVectors() bool
	// Vectors returns the store's VectorStore role; nil when it keeps
	// none.
	Vectors() VectorStore
}

// Tx is one transaction. Its methods must only be called from the function
// given to View or Update, and not concurrently. Write methods on a Tx from
// View return EINVALID.
//
// Its methods are grouped by role, each with the serialisation it needs
// in an Update (what the SQLite backend gets from serialising every
// Update, and the PostgreSQL backend from a lock per project, partition
// or source, held until commit). Optional capabilities and roles are
// declared in TxCapabilities (and StoreCapabilities on a Store).
type Tx interface {
	MemoryTx
	IndexTx
	ActivityTx
	IngestTx
	TokenTx
	JobTx
	SettingsTx
	TxCapabilities
}

// TxCapabilities are what a transaction may do beyond the contract every
// backend keeps, declared as StoreCapabilities are: the method a Supports
// method names must be called only when it reports true, and returns an
// EINTERNAL error otherwise.
type TxCapabilities interface {
	// SupportsBulk reports whether Bulk does anything.
	SupportsBulk() bool
	// Bulk prepares this transaction for a large write (an import): the
	// backend may hold more in memory until the transaction ends. On a
	// transaction of View it does nothing.
	Bulk(ctx context.Context) error

	// SupportsTouchEach reports whether TouchEach may be called.
	SupportsTouchEach() bool
	// TouchEach records a use of each memory in ids, the i-th at at[i],
	// as TouchMemories called once per id in that order would: an id
	// given n times gains n uses (and n boosts, up to max), and its last
	// use is the last of its times. It returns the project of each memory
	// touched, by id; ids not stored are left out. A backend offers it
	// when it writes a batch of uses faster than one TouchMemories per
	// use (SQLite: each row once, in storage order).
	TouchEach(ctx context.Context, ids []string, at []time.Time, boost, max float64) (map[string]string, error)

	// SupportsUseQueue reports whether QueueUses and FoldUses may be
	// called.
	SupportsUseQueue() bool
	// QueueUses stores a use of each memory in ids, the i-th at at[i],
	// in a queue, leaving the memories as they are: FoldUses applies
	// them later. A queued use is as lasting as any other write of the
	// transaction, and is applied by whichever process folds next. It
	// returns the project of each memory queued, by id; ids not stored
	// are left out. A backend offers it when a use written to the queue
	// costs much less than one applied to its memory (SQLite: a row
	// appended, against the memory's row and the entries of its use and
	// confidence indexes rewritten, each at its own page).
	QueueUses(ctx context.Context, ids []string, at []time.Time) (map[string]string, error)
	// FoldUses applies every queued use, in the order they were queued,
	// as TouchEach would with the same boost and max, except that a
	// memory's last use never goes back (a later use applied meanwhile
	// is kept), and empties the queue. The uses of memories no longer
	// stored are dropped. It returns how many uses it applied. Callers
	// fold in a transaction that writes nothing else: a backend may take
	// the locks of every project whose memories it changes (PostgreSQL,
	// in one order), which a later lock in the same transaction could
	// meet in another writer's opposite order.
	FoldUses(ctx context.Context, boost, max float64) (int, error)
	// FoldOldestUses is FoldUses of the limit (≥ 1) uses queued first
	// only: the later ones stay queued, for the next fold. more reports
	// whether some may be left (it may be true of a queue that held
	// exactly limit). A fold of a long queue made in steps leaves the
	// writer's lock to other writes between them.
	FoldOldestUses(ctx context.Context, boost, max float64, limit int) (n int, more bool, err error)

	// SupportsIterations reports whether the store keeps agent-loop
	// iterations.
	SupportsIterations() bool
	// Iterations returns the transaction's IterationTx role; nil when the
	// store keeps no iterations.
	Iterations() IterationTx
}

// JobTx is the role of a transaction over the state of background jobs
// (package jobs): for each job and project, when it last ran and how far
// it got. A state is written by the process that ran the job; two
// processes running the same job write the same row, and the last commit
// wins, so it needs no turn of its own.
type JobTx interface {
	// FindJobStates returns the states of job, by project in byte order.
	FindJobStates(ctx context.Context, job string) ([]JobState, error)
	// PutJobState stores s, replacing the state of its job and project.
	// EINVALID for an empty job.
	PutJobState(ctx context.Context, s JobState) error
}

// SettingsTx is the role of a transaction over projects' settings: each
// project's policy (Settings) as the command that owns the project's
// folder last wrote it, so that every process answering for the project
// applies the same. A project without stored settings has none; the
// reader decides what applies then (the engine: its own defaults).
type SettingsTx interface {
	// FindProjectSettings returns the settings stored for project, or
	// ENOTFOUND when none are.
	FindProjectSettings(ctx context.Context, project string) (*StoredSettings, error)
	// PutProjectSettings stores s, replacing its project's; the last
	// commit wins. EINVALID for an empty project or document.
	PutProjectSettings(ctx context.Context, s StoredSettings) error
	// DeleteProjectSettings removes project's settings; a project without
	// any is no error.
	DeleteProjectSettings(ctx context.Context, project string) error
}

// StoredSettings is one project's settings as a store keeps them. The
// store holds the document as text and does not read it: the engine
// encodes and decodes it (Settings as JSON).
type StoredSettings struct {
	Project  string
	Document string // the settings, as JSON
	// Source says where the settings were read from, for people ("the
	// files /p/.cairn/cairn.toml, ~/.config/cairn/cairn.toml").
	Source string
	// Fingerprint identifies the files' state the settings were read
	// from, for the writer to tell whether they changed since.
	Fingerprint string
	// Folder is the project's folder as the writer saw it.
	Folder    string
	UpdatedAt time.Time // UTC, to the millisecond
}

// MaxSettingsBytes bounds a project's stored settings document: the
// built-in settings take about 3 KB as JSON.
const MaxSettingsBytes = 1 << 20

// JobState is what a background job keeps of its work on one project
// between runs and across restarts.
type JobState struct {
	Job     string
	Project string // "" for a job over the whole store
	// RanAt is when the job last ran for the project (UTC, to the
	// millisecond); zero when never.
	RanAt time.Time
	// Cursor is how far the job has read (an event's Seq, say): the
	// job's to interpret.
	Cursor int64
	// Data is the job's own text (a folder, say).
	Data string
}

// MemoryTx is the role of a transaction over memories.
//
// In an Update, a method that reads or writes a project's memories first
// waits for every other Update that has done so (for a memory read by
// id: the memory's project) and keeps them from it until commit, so a
// dedup check, a key lookup or a read-modify-write of a memory sees every
// committed write and loses none. Methods that decide no write wait for
// nothing (FindMemoryIDsByPrefix, ScanMemoryKeys, CountByType,
// CountCreated, FindProjects, FindMemoriesSupersededBy, FindMemories of
// the global scope): callers use them as hints or for display, and look a
// memory up again before writing it.
type MemoryTx interface {
	// FindMemoryByID returns the memory or ENOTFOUND.
	FindMemoryByID(ctx context.Context, id string) (*Memory, error)
	// FindMemoryIDsByPrefix returns up to limit ids that start with prefix,
	// in byte order: of any project when project is "", else of that
	// project's memories and the global-scope ones only.
	FindMemoryIDsByPrefix(ctx context.Context, project, prefix string, limit int) ([]string, error)
	// FindMemoryByKey returns the memory of project with that type and key,
	// or ENOTFOUND.
	FindMemoryByKey(ctx context.Context, project, typ, key string) (*Memory, error)
	// FindMemoriesByHash returns the memories of project whose ContentHash
	// is hash, oldest first.
	FindMemoriesByHash(ctx context.Context, project, hash string) ([]*Memory, error)
	// FindMemoriesByDoc returns the memories of the index partition with the
	// given document numbers, in no particular order; numbers without a
	// memory are skipped.
	FindMemoriesByDoc(ctx context.Context, partition string, docs []int64) ([]*Memory, error)
	// ExpiredDocs returns the document numbers, from from on, of the
	// memories of the index partition whose expiry is set and before
	// before, in no particular order: the documents a search at any later
	// clock reading may skip (see engine's expiry masks).
	ExpiredDocs(ctx context.Context, partition string, from int64, before time.Time) ([]int64, error)
	// FindMemories returns the memories matching f, in f.Sort order, at most
	// f.Limit of them (0: no limit), and how many match in all.
	FindMemories(ctx context.Context, f MemoryFilter) ([]*Memory, int, error)
	// ScanMemoryKeys calls fn with the id, project and content hash of
	// every stored memory, in no particular order. Bulk writers use it to
	// avoid one lookup per record.
	ScanMemoryKeys(ctx context.Context, fn func(id, project, hash string)) error
	// CountByType returns how many memories project has of each type.
	CountByType(ctx context.Context, project string) (map[string]int, error)
	// CountCreated counts the memories of project (whatever their scope)
	// created at or after from, by type and by period: period i holds
	// those created in [from+i×step, from+(i+1)×step). Only non-zero
	// counts are returned, in no particular order. step is positive.
	CountCreated(ctx context.Context, project string, from time.Time, step time.Duration) ([]CreatedCount, error)
	// FindProjects returns every project that has memories, by name in
	// byte order, with how many memories it holds and when one of them
	// last changed or was used.
	FindProjects(ctx context.Context) ([]ProjectSummary, error)

	// CreateMemory stores m as given. ECONFLICT when m.ID exists, or when
	// another memory of the project has the same type and key.
	CreateMemory(ctx context.Context, m *Memory) error
	// UpdateMemory replaces the stored memory with m.ID by m. ENOTFOUND
	// when it does not exist.
	UpdateMemory(ctx context.Context, m *Memory) error
	// DeleteMemory removes the memory. ENOTFOUND when it does not exist.
	DeleteMemory(ctx context.Context, id string) error
	// FindMemoriesSupersededBy returns the memories whose SupersededBy is
	// id, oldest first.
	FindMemoriesSupersededBy(ctx context.Context, id string) ([]*Memory, error)
	// FindLifecycleStates returns the lifecycle fields of the memories of
	// project (whatever their scope) that page selects, oldest first (by
	// creation, then id).
	FindLifecycleStates(ctx context.Context, project string, page LifecyclePage) ([]LifecycleState, error)
	// TouchMemories records one use of each memory in ids at now:
	// use_count+1, last_used_at=now, and confidence raised by boost but
	// not above max (a confidence already at or above max is kept); an id
	// given twice counts once. It changes no other field (updated_at
	// neither). It returns the project of each memory touched, by id; ids
	// not stored are left out.
	TouchMemories(ctx context.Context, ids []string, now time.Time, boost, max float64) (map[string]string, error)
	// DecayMemories sets the confidence and decay clock of each memory,
	// and no other field. ENOTFOUND when one does not exist.
	DecayMemories(ctx context.Context, ds []Decay) error
}

// IndexTx is the role of a transaction over the search index: per
// partition (a project's memories, or "" for the global-scope ones), its
// statistics and each term's postings.
//
// In an Update, every method waits for the other Updates that touched the
// same partition and keeps them from it until commit, so statistics and
// postings read, changed and written back lose nothing. A project's
// partition shares its project's turn (MemoryTx), so a memory and its
// postings are written together.
type IndexTx interface {
	// Partition returns the search index statistics of a partition; a
	// partition never written returns zero statistics, not an error.
	Partition(ctx context.Context, name string) (*PartitionStats, error)
	// PartitionCounts is Partition without the dead set (Dead is nil):
	// a reader that keeps the decoded dead set while the statistics stay
	// the same need not read it, which for a partition with many removed
	// documents is hundreds of kilobytes.
	PartitionCounts(ctx context.Context, name string) (*PartitionStats, error)
	// PartitionDocs returns the number of documents (PartitionStats.Docs)
	// of every partition that has any, by name: the projects a database
	// holds, and "" when it holds global-scope memories.
	PartitionDocs(ctx context.Context) (map[string]int64, error)
	// PutPartition stores the statistics of ps.Name.
	PutPartition(ctx context.Context, ps *PartitionStats) error
	// Postings returns the stored postings of the given terms in a
	// partition; terms without postings are left out.
	Postings(ctx context.Context, partition string, terms []string) ([]TermPostings, error)
	// DocFreqs returns the document frequency of each given term that has
	// postings in the partition, without reading the postings.
	DocFreqs(ctx context.Context, partition string, terms []string) (map[string]int64, error)
	// DocFreqSums returns, for each given term that has postings in any
	// of the given partitions, its document frequency summed over them,
	// without reading the postings.
	DocFreqSums(ctx context.Context, partitions, terms []string) (map[string]int64, error)
	// AppendPostings adds each tp.DF to the term's document frequency and
	// appends tp.Data to its stored postings, creating the term if needed.
	AppendPostings(ctx context.Context, partition string, tps []TermPostings) error
	// ReplacePostings stores each tp as the whole postings of its term; a tp
	// with empty Data removes the term.
	ReplacePostings(ctx context.Context, partition string, tps []TermPostings) error
	// ScanPostings returns up to limit terms of a partition after term
	// `after` in byte order, with their postings.
	ScanPostings(ctx context.Context, partition, after string, limit int) ([]TermPostings, error)
}

// ActivityTx is the role of a transaction over the activity log, whose
// entries are also the event stream.
//
// Appending waits for no project: entries are only added. What is
// serialised is the order of their IDs, which must follow the order of
// commits across every process (see FindEvents); a backend may hold that
// turn only from the moment it writes the entries until commit.
type ActivityTx interface {
	// AppendActivity adds entries to the activity log; their ID is
	// assigned by the store.
	AppendActivity(ctx context.Context, as []Activity) error
	// FindActivity returns the entries matching f, newest first (by At,
	// then by insertion), at most f.Limit of them (0: no limit), and how
	// many match in all. An empty f.Project matches every project; the
	// engine uses it only with a SessionID (a session's entries, whatever
	// project their memories belong to).
	FindActivity(ctx context.Context, f ActivityFilter) ([]Activity, int, error)
	// FindEvents returns the activity entries matching f as events, in
	// Seq order, each with its memory's type and title when the memory
	// exists. An entry's Seq is its activity ID: IDs must increase in
	// the order transactions commit (a reader that has seen ID N never
	// later sees a smaller one appear) and are never reused, so that
	// "after N" resumes without loss.
	FindEvents(ctx context.Context, f EventFilter) ([]Event, error)
	// LastEventSeq returns the greatest activity ID stored, 0 when there
	// is none.
	LastEventSeq(ctx context.Context) (int64, error)
}

// IngestTx is the role of a transaction over the cursors of transcript
// ingestion. In an Update, its methods wait for the other Updates of the
// same source and keep them from it until commit, so two ingests of one
// transcript never read the same bytes twice.
type IngestTx interface {
	// FindIngestOffset returns how many bytes of the transcript source
	// (an absolute path) have been ingested, or 0 when it is unknown.
	FindIngestOffset(ctx context.Context, source string) (int64, error)
	// PutIngestOffset records how many bytes of source have been ingested.
	PutIngestOffset(ctx context.Context, source string, offset int64, at time.Time) error
	// FindIngestPending returns what the last ingest of source left for the
	// next one ("" when nothing): an opaque text of the reader's.
	FindIngestPending(ctx context.Context, source string) (string, error)
	// PutIngestState records the offset and the pending text of source in
	// one write.
	PutIngestState(ctx context.Context, source string, offset int64, pending string, at time.Time) error
}

// TokenTx is the role of a transaction over the HTTP API's access tokens.
// It needs no turn of its own: a token's ID and hash are unique, so of two
// Updates creating the same one, one gets ECONFLICT.
type TokenTx interface {
	// CreateToken stores an access token. ECONFLICT when its ID or Hash
	// is taken.
	CreateToken(ctx context.Context, tok *Token) error
	// FindTokenByHash returns the token whose Hash is hash, or ENOTFOUND.
	FindTokenByHash(ctx context.Context, hash string) (*Token, error)
	// FindTokens returns every token, oldest first.
	FindTokens(ctx context.Context) ([]*Token, error)
	// DeleteToken removes a token. ENOTFOUND when it does not exist.
	DeleteToken(ctx context.Context, id string) error
}

// PartitionStats describe one search index partition (a project's
// memories, or the global-scope memories). Docs and TotalLen count live
// documents; Dead holds the numbers of documents whose postings are stale
// (encoded by package index) until the partition is compacted.
type PartitionStats struct {
	Name     string
	Docs     int64
	TotalLen int64
	NextDoc  int64
	DeadDocs int64
	Dead     []byte
	// Analyzer is the version of the rules the postings were made with
	// (engine.IndexVersion: the text analysis and the terms the engine
	// adds; the engine's to set and compare; 0 for a partition never
	// written).
	Analyzer int
}

// TermPostings is one term's postings in an index partition, in the
// encoding of package index.
type TermPostings struct {
	Term string
	DF   int64
	Data []byte
}

// Sort orders for MemoryFilter.
const (
	SortCreatedDesc    = "created"    // newest first (the default)
	SortCreatedAsc     = "oldest"     // oldest first
	SortUpdatedDesc    = "updated"    // most recently changed first
	SortConfidenceDesc = "confidence" // most trusted first
	SortUsedDesc       = "used"       // most often used first
	SortLastUsedDesc   = "recent"     // most recently used first
	// SortValueDesc orders by confidence × (use count + 1), highest
	// first: seed 002's recall, which surfaces the trusted memories
	// that are used most.
	SortValueDesc = "value"
)

// MemoryFilter selects memories for listing. Zero fields do not filter.
type MemoryFilter struct {
	Project       string // required
	IncludeGlobal bool   // also global-scope memories of other projects
	IDs           []string
	Types         []string // any of
	Tags          []string // all of
	MinConfidence float64
	After         time.Time // created at or after
	Before        time.Time // created before
	Session       string    // created in this session
	Agent         string    // written by this agent (Memory.Agent)
	Task          string    // written for this task (Memory.TaskID)
	Hat           string    // written under this hat (Memory.Hat)
	Pinned        bool      // only pinned memories
	HasFileRefs   bool      // only memories with file references
	Source        Source    // came to be this way (Memory.Source)
	NeverUsed     bool      // only memories never used (UseCount 0)
	// ExpiresAfter and ExpiresBefore select memories that expire (a
	// memory without an expiry never matches them): at or after
	// ExpiresAfter, before ExpiresBefore.
	ExpiresAfter  time.Time
	ExpiresBefore time.Time
	// SkipTotal leaves the total count (FindMemories' second result) at
	// 0, which saves a count of every match.
	SkipTotal bool
	// GlobalScope selects the global-scope memories of every project
	// instead of Project's (Project is then ignored).
	GlobalScope bool
	Sort        string
	Limit       int
	Offset      int
}

// CreatedCount is how many memories of a type were created in one period
// (see MemoryTx.CountCreated).
type CreatedCount struct {
	Type   string
	Period int
	Count  int
}

// ProjectSummary describes one project's memories.
type ProjectSummary struct {
	Name     string
	Memories int
	// LastActivity is the latest time one of its memories was changed
	// (or created) or used.
	LastActivity time.Time
}
