package engine

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"sort"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
)

// contentHash identifies content up to white space.
func contentHash(content string) string {
	h := sha256.New()
	var buf [4096]byte
	out := buf[:0]
	space := false // a white-space run is pending
	wrote := false // a non-space character was written
	for i := 0; i < len(content); {
		c := content[i]
		size := 1
		isSpace := false
		if c < utf8.RuneSelf {
			isSpace = asciiSpace[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(content[i:])
			isSpace = unicode.IsSpace(r)
		}
		if isSpace {
			space = wrote
			i += size
			continue
		}
		if len(out)+size+1 > len(buf) {
			h.Write(out)
			out = buf[:0]
		}
		if space {
			out = append(out, ' ')
			space = false
		}
		out = append(out, content[i:i+size]...)
		wrote = true
		i += size
	}
	h.Write(out)
	var sum [sha256.Size]byte
	return hex.EncodeToString(h.Sum(sum[:0])[:16])
}

var asciiSpace = [utf8.RuneSelf]bool{'\t': true, '\n': true, '\v': true, '\f': true, '\r': true, ' ': true}

// partitionOf is the index partition of a memory.
func partitionOf(m *cairn.Memory) string {
	if m.Scope == cairn.ScopeGlobal {
		return ""
	}
	return m.Project
}

// indexedText is what search matches a memory on: its title (when it is
// not just the start of the content), key, content, tags and file refs.
func indexedText(m *cairn.Memory) string {
	n := len(m.Title) + len(m.Key) + len(m.Content) + 2
	for _, x := range m.Tags {
		n += len(x) + 1
	}
	for _, x := range m.FileRefs {
		n += len(x) + 1
	}
	var b strings.Builder
	b.Grow(n)
	if !cairn.TitleRepeatsContent(m.Title, m.Content) {
		b.WriteString(m.Title)
		b.WriteByte('\n')
	}
	if m.Key != "" {
		b.WriteString(m.Key)
		b.WriteByte('\n')
	}
	b.WriteString(m.Content)
	for _, t := range m.Tags {
		b.WriteByte('\n')
		b.WriteString(t)
	}
	for _, r := range m.FileRefs {
		b.WriteByte('\n')
		b.WriteString(r)
	}
	return b.String()
}

// sameIndexedText reports whether a and b would be indexed identically.
func sameIndexedText(a, b *cairn.Memory) bool {
	return partitionOf(a) == partitionOf(b) && a.Type == b.Type && indexedText(a) == indexedText(b)
}

// IndexVersion identifies the rules that make a partition's postings: the
// text analysis (lexical.Version) and the terms cairn adds to a memory's
// words (its type, see typeTerm, its tags, see tagTerm, and its file
// references, see refTerms: version +3 added the tags and the names of
// bare and absolute references).
// A partition made by other rules is rebuilt (PartitionStats.Analyzer
// holds the version it was made by).
const IndexVersion = lexical.Version + 3

// tagTerm is the index term of a memory's tag t: the memories that carry
// a tag are its postings (tagCandidates), as those of a type are the type
// term's.
func tagTerm(t string) string { return "*tag:" + t }

// typeTerm is the index term that marks a memory of type t: a term that
// text analysis never makes (terms never hold '*'), so no query matches
// it, while a search narrowed to types reads the documents of those types
// from its postings instead of loading candidates to check their type. It
// does not count toward the document's length.
func typeTerm(t string) string { return "*type:" + t }

// docTerms appends m's index terms to dst: those of its indexed text, then
// its type's and its file references' terms; dl is the document length
// (the text's, see lexical.Analyze).
func docTerms(m *cairn.Memory, dst []string) (terms []string, dl int) {
	dst, dl = lexical.Analyze(indexedText(m), dst)
	if m.Type != "" {
		dst = append(dst, typeTerm(m.Type))
	}
	for _, t := range m.Tags {
		dst = append(dst, tagTerm(t))
	}
	return refTerms(m.FileRefs, dst), dl
}

// Compaction policy: a partition is compacted when its dead documents
// outnumber a quarter of its live ones, and at least minDeadForCompaction
// are dead.
const minDeadForCompaction = 256

// indexBatch collects index changes made in one transaction and writes
// them once at the end (flush), so that a bulk import appends one chunk
// per term instead of one per memory.
type indexBatch struct {
	parts map[string]*partState
	terms []string
	// pre, when set, is the analysis of a memory about to be added,
	// computed ahead (see Import); it is used when that very memory is
	// added (a key upsert or a reinforcement adds another one).
	pre *analysis
	// deferCompact leaves compaction to the caller, which compacts in
	// steps (compactInSteps) the partitions compactionDue names.
	deferCompact bool
	// stepping holds the partitions compacted in steps meanwhile: a flush
	// does not compact them in its own transaction.
	stepping *stepCompactions
}

// analysis is a memory's index terms, counted, and document length, made
// before the memory is handed to the writer, which changes no indexed
// field of it.
type analysis struct {
	m   *cairn.Memory
	tfs []index.TermFreq
	dl  int
}

func analyze(m *cairn.Memory) *analysis {
	a := &analysis{m: m}
	var terms []string
	terms, a.dl = docTerms(m, nil)
	a.tfs = index.CountTerms(terms)
	return a
}

type partState struct {
	stats   *cairn.PartitionStats
	dead    index.DeadSet
	builder *index.Builder
	changed bool
}

func newIndexBatch() *indexBatch { return &indexBatch{parts: map[string]*partState{}} }

// newIndexBatch is a batch of e's writes: it leaves the partitions e's
// cleanup is compacting a step at a time to it.
func (e *Engine) newIndexBatch() *indexBatch {
	b := newIndexBatch()
	b.stepping = e.compacting
	return b
}

// stepCompactions is the set of partitions, by name, that a cleanup of
// this process is compacting a step at a time (compactInSteps), shared by
// the engines derived from one.
type stepCompactions struct {
	mu    sync.Mutex
	names map[string]int
}

func (c *stepCompactions) has(name string) bool {
	if c == nil {
		return false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.names[name] > 0
}

// hold marks name as compacted in steps until the returned func is called.
func (c *stepCompactions) hold(name string) func() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.names == nil {
		c.names = map[string]int{}
	}
	c.names[name]++
	return func() {
		c.mu.Lock()
		defer c.mu.Unlock()
		if c.names[name]--; c.names[name] <= 0 {
			delete(c.names, name)
		}
	}
}

func (b *indexBatch) part(ctx context.Context, tx cairn.Tx, name string) (*partState, error) {
	if p, ok := b.parts[name]; ok {
		return p, nil
	}
	stats, err := tx.Partition(ctx, name)
	if err != nil {
		return nil, err
	}
	switch {
	case stats.NextDoc == 0:
		stats.Analyzer = IndexVersion
	case stats.Analyzer != IndexVersion:
		if stats, err = rebuildPartition(ctx, tx, stats); err != nil {
			return nil, err
		}
	}
	dead, err := index.DecodeDead(stats.Dead)
	if err != nil {
		return nil, cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q", name)
	}
	p := &partState{stats: stats, dead: dead, builder: index.NewBuilder()}
	b.parts[name] = p
	return p, nil
}

// add gives m a document number in its partition and records its postings.
func (b *indexBatch) add(ctx context.Context, tx cairn.Tx, m *cairn.Memory) error {
	m.Partition = partitionOf(m)
	p, err := b.part(ctx, tx, m.Partition)
	if err != nil {
		return err
	}
	m.DocNum = p.stats.NextDoc
	var dl int
	if b.pre != nil && b.pre.m == m {
		dl = b.pre.dl
		p.builder.AddCounted(m.DocNum, dl, b.pre.tfs)
	} else {
		b.terms, dl = docTerms(m, b.terms[:0])
		p.builder.Add(m.DocNum, dl, b.terms)
	}
	p.stats.NextDoc++
	p.stats.Docs++
	p.stats.TotalLen += int64(dl)
	p.changed = true
	return nil
}

// remove marks m's document dead.
func (b *indexBatch) remove(ctx context.Context, tx cairn.Tx, m *cairn.Memory) error {
	p, err := b.part(ctx, tx, m.Partition)
	if err != nil {
		return err
	}
	if !p.dead.Add(m.DocNum) {
		return nil
	}
	var dl int
	b.terms, dl = lexical.Analyze(indexedText(m), b.terms[:0])
	p.stats.Docs--
	p.stats.TotalLen -= int64(dl)
	if p.stats.Docs <= 0 {
		p.stats.Docs, p.stats.TotalLen = 0, 0
	}
	if p.stats.TotalLen < 0 {
		p.stats.TotalLen = 0
	}
	p.stats.DeadDocs++
	p.changed = true
	return nil
}

// reindex replaces old's document by m's. m keeps old's document when
// its indexed text is the same and its expiry is not later: a search
// may skip a document whose memory expired (see skipExpired), and takes
// a document it skipped to stay expired.
func (b *indexBatch) reindex(ctx context.Context, tx cairn.Tx, old, m *cairn.Memory) error {
	if sameIndexedText(old, m) && !expiresLater(old, m) {
		m.Partition, m.DocNum = old.Partition, old.DocNum
		return nil
	}
	if err := b.remove(ctx, tx, old); err != nil {
		return err
	}
	return b.add(ctx, tx, m)
}

// expiresLater reports whether m expires later than old: it expires
// later, or no longer expires.
func expiresLater(old, m *cairn.Memory) bool {
	return !old.ExpiresAt.IsZero() && (m.ExpiresAt.IsZero() || m.ExpiresAt.After(old.ExpiresAt))
}

// flush writes the batch's postings and statistics, compacting partitions
// with too many dead documents.
func (b *indexBatch) flush(ctx context.Context, tx cairn.Tx) error {
	for name, p := range b.parts {
		if !p.changed {
			continue
		}
		if p.builder.Docs > 0 {
			if err := tx.AppendPostings(ctx, name, p.builder.Postings()); err != nil {
				return err
			}
			p.builder = index.NewBuilder()
		}
		if !b.deferCompact && compactionDue(p.stats) && !b.stepping.has(name) {
			if err := compact(ctx, tx, name, p.dead); err != nil {
				return err
			}
			p.dead, p.stats.DeadDocs = nil, 0
		}
		p.stats.Dead = index.EncodeDead(p.dead)
		if err := tx.PutPartition(ctx, p.stats); err != nil {
			return err
		}
		p.changed = false
	}
	return nil
}

// compactionDue says whether a partition has enough dead documents to be
// compacted.
func compactionDue(st *cairn.PartitionStats) bool {
	return st.DeadDocs >= minDeadForCompaction && st.DeadDocs*4 > st.Docs
}

// compactionDue names the partitions of the batch, as last flushed, that
// are due for compaction.
func (b *indexBatch) compactionDue() []string {
	var out []string
	for name, p := range b.parts {
		if compactionDue(p.stats) {
			out = append(out, name)
		}
	}
	sort.Strings(out)
	return out
}

// compactStep is how many terms compactInSteps rewrites in one
// transaction.
const compactStep = 500

// compactInSteps compacts a partition compactStep terms per transaction,
// so that the requests that arrive meanwhile wait for one step at most:
// it removes from every term the postings of the documents that were dead
// when it began, then takes those documents out of the dead set. Document
// numbers are never reused, so postings of a dead document can go at any
// time, and searches keep leaving them out (they are in the dead set)
// until the last step. A write of this process meanwhile does not compact
// the partition in its own transaction. Nothing to do when the partition
// is no longer due (another writer compacted it).
func (e *Engine) compactInSteps(ctx context.Context, name string) error {
	defer e.compacting.hold(name)()
	var gone index.DeadSet
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		st, err := tx.Partition(ctx, name)
		if err != nil || !compactionDue(st) || st.Analyzer != IndexVersion {
			return err
		}
		gone, err = index.DecodeDead(st.Dead)
		if err != nil {
			return cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q", name)
		}
		return nil
	})
	if err != nil || gone.Len() == 0 {
		return err
	}
	for after, done := "", false; !done; {
		err := e.store.Update(ctx, func(tx cairn.Tx) error {
			tps, err := tx.ScanPostings(ctx, name, after, compactStep)
			if err != nil {
				return err
			}
			if len(tps) < compactStep {
				done = true
			}
			if len(tps) == 0 {
				return nil
			}
			out := make([]cairn.TermPostings, 0, len(tps))
			for _, tp := range tps {
				data, n, err := index.Compact(tp.Data, gone)
				if err != nil {
					return cairn.WrapError(cairn.EINTERNAL, err, "compact the index of %q at term %q", name, tp.Term)
				}
				if n != tp.DF || len(data) != len(tp.Data) {
					out = append(out, cairn.TermPostings{Term: tp.Term, DF: n, Data: data})
				}
			}
			after = tps[len(tps)-1].Term
			return tx.ReplacePostings(ctx, name, out)
		})
		if err != nil {
			return err
		}
	}
	return e.store.Update(ctx, func(tx cairn.Tx) error {
		st, err := tx.Partition(ctx, name)
		if err != nil {
			return err
		}
		dead, err := index.DecodeDead(st.Dead)
		if err != nil {
			return cairn.WrapError(cairn.EINTERNAL, err, "read the index of %q", name)
		}
		for w := range min(len(dead), len(gone)) {
			dead[w] &^= gone[w]
		}
		st.Dead, st.DeadDocs = index.EncodeDead(dead), int64(dead.Len())
		return tx.PutPartition(ctx, st)
	})
}

// compact rewrites every term of a partition without dead postings.
func compact(ctx context.Context, tx cairn.Tx, partition string, dead index.DeadSet) error {
	after := ""
	for {
		tps, err := tx.ScanPostings(ctx, partition, after, 1000)
		if err != nil {
			return err
		}
		if len(tps) == 0 {
			return nil
		}
		out := make([]cairn.TermPostings, 0, len(tps))
		for _, tp := range tps {
			data, n, err := index.Compact(tp.Data, dead)
			if err != nil {
				return cairn.WrapError(cairn.EINTERNAL, err, "compact the index of %q at term %q", partition, tp.Term)
			}
			if n != tp.DF || len(data) != len(tp.Data) {
				out = append(out, cairn.TermPostings{Term: tp.Term, DF: n, Data: data})
			}
		}
		if err := tx.ReplacePostings(ctx, partition, out); err != nil {
			return err
		}
		after = tps[len(tps)-1].Term
	}
}

// rebuildBatch is how many documents a rebuild reads at a time.
const rebuildBatch = 1000

// rebuildPartition remakes a partition's postings from its memories with
// the current index rules (IndexVersion), keeping every memory's
// document number, and returns its new statistics. It runs in the
// caller's write transaction: a rebuild is all or nothing.
func rebuildPartition(ctx context.Context, tx cairn.Tx, old *cairn.PartitionStats) (*cairn.PartitionStats, error) {
	after := ""
	for { // remove every term
		tps, err := tx.ScanPostings(ctx, old.Name, after, 1000)
		if err != nil {
			return nil, err
		}
		if len(tps) == 0 {
			break
		}
		gone := make([]cairn.TermPostings, len(tps))
		for i, tp := range tps {
			gone[i] = cairn.TermPostings{Term: tp.Term}
		}
		if err := tx.ReplacePostings(ctx, old.Name, gone); err != nil {
			return nil, err
		}
		after = tps[len(tps)-1].Term
	}
	ps := &cairn.PartitionStats{Name: old.Name, NextDoc: old.NextDoc, Analyzer: IndexVersion}
	var terms []string
	docs := make([]int64, 0, rebuildBatch)
	for start := int64(0); start < old.NextDoc; start += rebuildBatch {
		docs = docs[:0]
		for d := start; d < min(start+rebuildBatch, old.NextDoc); d++ {
			docs = append(docs, d)
		}
		ms, err := tx.FindMemoriesByDoc(ctx, old.Name, docs)
		if err != nil {
			return nil, err
		}
		sort.Slice(ms, func(i, j int) bool { return ms[i].DocNum < ms[j].DocNum })
		b := index.NewBuilder()
		for _, m := range ms {
			var dl int
			terms, dl = docTerms(m, terms[:0])
			b.Add(m.DocNum, dl, terms)
		}
		if b.Docs > 0 {
			if err := tx.AppendPostings(ctx, old.Name, b.Postings()); err != nil {
				return nil, err
			}
		}
		ps.Docs += b.Docs
		ps.TotalLen += b.Len
	}
	return ps, tx.PutPartition(ctx, ps)
}
