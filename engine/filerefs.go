package engine

import (
	"context"
	"path"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
)

// The memories about a file being worked on are found from the index, not
// by reading every memory with file references: each reference, cleaned
// (cairn.CleanFileRef), is a term of its memory's document that no query
// word matches. A plain reference (a path or a folder) is "*ref:" and the
// path; a bare file name or an absolute path is also "*refname:" and its
// last element, the references that name a file from another folder (see
// cairn.FileRefMatch). A glob is "*refglob:", the folder of the text
// before its first wildcard ("" at the root), the only folder under which
// it can match, "|" and the extension its last element ends with when
// that is literal ("*.md": ".md"; "" for any), the only extension of the
// files it can match. The references that may match a file are then those
// under a few terms (the file's own and its folders', its name's, the
// globs under its folders for any extension or for the file's, and the
// same for each of its tails when it is absolute), and cairn.FileRefMatch
// decides.

// refTerms appends the index terms of a memory's file references to dst.
func refTerms(refs []string, dst []string) []string {
	for _, r := range refs {
		r = cairn.CleanFileRef(r)
		if r == "" {
			continue
		}
		if i := strings.IndexAny(r, globChars); i >= 0 {
			dir := r[:i]
			if j := strings.LastIndexByte(dir, '/'); j >= 0 {
				dir = dir[:j]
			} else {
				dir = ""
			}
			dst = append(dst, "*refglob:"+dir+"|"+globExt(r))
			continue
		}
		dst = append(dst, "*ref:"+r)
		if !strings.Contains(r, "/") || path.IsAbs(r) {
			dst = append(dst, "*refname:"+path.Base(r))
		}
	}
	return dst
}

// globChars are the characters that make a reference a glob.
const globChars = `*?[\`

// globExt is the extension that every file a glob matches ends with: that
// of its last element when it is literal (no wildcard, class or escape
// after its last dot), else "".
func globExt(glob string) string {
	last := glob[strings.LastIndexByte(glob, '/')+1:]
	i := strings.LastIndexByte(last, '.')
	if i < 0 || strings.ContainsAny(last[i:], globChars+"]") {
		return ""
	}
	return last[i:]
}

// fileExt is the extension of the file f: its last element from its last
// dot, or "".
func fileExt(f string) string {
	last := f[strings.LastIndexByte(f, '/')+1:]
	if i := strings.LastIndexByte(last, '.'); i >= 0 {
		return last[i:]
	}
	return ""
}

// fileQueryTerms returns the terms under which the references that may
// name the file f are indexed; ok is false when f is a glob or empty,
// which only a scan of the references can match.
func fileQueryTerms(f string, dst []string) (_ []string, ok bool) {
	f = cairn.CleanFileRef(f)
	if f == "" || cairn.IsFileGlob(f) {
		return dst, false
	}
	ext := fileExt(f)
	globs := func(dir string) {
		dst = append(dst, "*refglob:"+dir+"|")
		if ext != "" {
			dst = append(dst, "*refglob:"+dir+"|"+ext)
		}
	}
	dst = append(dst, "*refname:"+path.Base(f))
	tail := func(f string) {
		dst = append(dst, "*ref:"+f)
		globs("")
		for i := range len(f) {
			if f[i] == '/' && i > 0 {
				dst = append(dst, "*ref:"+f[:i])
				globs(f[:i])
			}
		}
	}
	tail(f)
	if path.IsAbs(f) {
		// Each tail may be the project's path of it (cairn.FileRefMatch).
		for i := 1; i < len(f); i++ {
			if f[i] == '/' {
				tail(f[i+1:])
			}
		}
	}
	return dst, true
}

// fileRefCandidates returns the project's memories (of types, when given)
// whose file references name any of files: at most limit (0:
// fileCandidates, at most maxFileLimit), those indexed last (the most
// recently written or whose text changed; of the project's partition,
// then of the global one for as many as are missing), the most recently
// changed first.
func (e *Engine) fileRefCandidates(ctx context.Context, project string, files, types []string, limit int) ([]*cairn.Memory, error) {
	if limit <= 0 {
		limit = fileCandidates
	}
	limit = min(limit, maxFileLimit)
	types, err := normalizeNames("type", types)
	if err != nil {
		return nil, err
	}
	var terms []string
	indexed := true
	for _, f := range files {
		var ok bool
		if terms, ok = fileQueryTerms(f, terms); !ok {
			indexed = false
		}
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	var out []*cairn.Memory
	fm := cairn.NewFileMatcher(files)
	match := func(m *cairn.Memory) bool {
		return m.Project == project && (len(types) == 0 || slices.Contains(types, m.Type)) && fm.Match(m) > 0
	}
	rows := e.rowsAt(ctx)
	allIndexed := indexed
	err = e.indexView(ctx, func(ctx context.Context, tx cairn.Tx) error {
		indexed, out = allIndexed, nil // run again when the index changed meanwhile
		if indexed {
			for _, part := range []string{project, ""} {
				docs, ok, err := e.refDocs(ctx, tx, part, terms, types, maxRefDocs*limit/fileCandidates)
				if err != nil {
					return err
				}
				if !ok { // an index made by older rules
					indexed, out = false, nil
					break
				}
				out, err = newestMatching(ctx, tx, rows, part, docs, match, out, limit)
				if err != nil {
					return err
				}
			}
		}
		if !indexed {
			ms, _, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: types, HasFileRefs: true, SkipTotal: true,
				Sort: cairn.SortUpdatedDesc, Limit: max(fileScan, limit)})
			for _, m := range ms {
				if match(m) {
					out = append(out, m)
				}
			}
			return err
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b *cairn.Memory) int {
		if c := b.UpdatedAt.Compare(a.UpdatedAt); c != 0 {
			return c
		}
		return strings.Compare(a.ID, b.ID)
	})
	return rows.handOn(out[:min(len(out), limit)]), nil
}

// newestMatching appends to out the memories of part's documents docs
// (the newest first) that match, the newest first, until out holds
// limit: a glob's term also holds files it does not match, so they are
// read a batch at a time, the first of limit, each next of as many as
// are still missing, over the share of those read so far that matched.
// Which memories it appends does not depend on the batches: the newest
// that match, as many as out lacks. A row read beyond them is a b-tree
// descent and, in a call after idle, pages read again: a second batch of
// limit after a first that came a few short read 64 rows an Edit block
// at 1,000,000 memories for 40 handed on; these batches read 47
// (docs/performance.md).
func newestMatching(ctx context.Context, tx cairn.Tx, rows *rowView, part string, docs []int64, match func(*cairn.Memory) bool, out []*cairn.Memory, limit int) ([]*cairn.Memory, error) {
	read, matched := 0, 0
	for len(docs) > 0 && len(out) < limit {
		need := limit - len(out)
		n := need
		if read > 0 {
			n = limit
			if matched > 0 {
				n = (need*read + matched - 1) / matched
			}
		}
		n = min(n, len(docs))
		ms, err := rows.byDoc(ctx, tx, part, docs[:n])
		if err != nil {
			return nil, err
		}
		// ms is in document order, the oldest first: keep the newest
		// need of those that match.
		start := len(out)
		for _, m := range ms {
			if match(m) {
				out = append(out, m)
			}
		}
		read, matched = read+n, matched+len(out)-start
		if len(out)-start > need {
			out = append(out[:start], out[len(out)-need:]...)
		}
		docs = docs[n:]
	}
	return out, nil
}

// refDocs returns the documents of a partition indexed under any of terms
// (and of types, when given), the highest document numbers (the memories
// indexed last) first, at most most. ok is false when the
// partition's index was made by other rules.
func (e *Engine) refDocs(ctx context.Context, tx cairn.Tx, part string, terms, types []string, most int) (_ []int64, ok bool, _ error) {
	// As a search reads them: a long-lived engine keeps the dead set
	// decoded while the statistics stay the same (searchDead).
	stats, whole, err := e.searchStats(ctx, tx, part)
	if err != nil {
		return nil, false, err
	}
	if stats.Docs == 0 {
		return nil, true, nil
	}
	if stats.Analyzer != IndexVersion {
		return nil, false, nil
	}
	stats, skip, err := e.searchDead(ctx, tx, stats, whole)
	if err != nil {
		return nil, false, err
	}
	if len(types) > 0 {
		if skip, err = e.skipOtherTypes(ctx, tx, stats, skip, types); err != nil {
			return nil, false, err
		}
	}
	tps, err := e.preparedPostings(ctx, tx, stats, terms)
	if err != nil {
		return nil, false, err
	}
	return index.NewestDocs(tps, skip, stats.NextDoc, most), true, nil
}

// handOn returns ms, rows the view read (rowView.byDoc), for the caller
// to change: copies of them when the engine keeps rows, else the rows
// themselves.
func (rv *rowView) handOn(ms []*cairn.Memory) []*cairn.Memory {
	if rv.e == nil {
		return ms // nothing is kept
	}
	for i, m := range ms {
		ms[i] = copyRow(m)
	}
	return ms
}

// maxRefDocs bounds the memories a context reads to find those about a
// file (their references are checked once they are read), and fileScan
// those it reads when the index cannot say (a file given as a glob, or
// an index made by older rules).
const (
	maxRefDocs = 5 * fileCandidates
	fileScan   = 500
)

// fileCandidates bounds the memories about the files being worked on that
// a block considers (the most recent; see fileRefCandidates), and
// maxFileLimit those a lookup may ask for.
const (
	fileCandidates = cairn.MaxFileCandidates
	maxFileLimit   = 1000
)

// maxTagDocs bounds the documents a lookup by tag reads: the newest
// written that carry one of the tags (a tag of an error or a command is
// carried by a few memories).
const maxTagDocs = 200

// tagCandidates returns the project's memories (of types, when given)
// that carry any of tags, the newest created first, at most limit (0:
// fileCandidates): found from the tags' index terms (tagTerm), among the
// maxTagDocs written last that carry one, or by a listing of the store
// when a partition's index was made by older rules.
func (e *Engine) tagCandidates(ctx context.Context, project string, tags, types []string, limit int) ([]*cairn.Memory, error) {
	if limit <= 0 {
		limit = fileCandidates
	}
	limit = min(limit, maxFileLimit)
	types, err := normalizeNames("type", types)
	if err != nil {
		return nil, err
	}
	terms := make([]string, 0, len(tags))
	for _, t := range tags {
		terms = append(terms, tagTerm(t))
	}
	slices.Sort(terms)
	terms = slices.Compact(terms)
	match := func(m *cairn.Memory) bool {
		if m.Project != project || len(types) > 0 && !slices.Contains(types, m.Type) {
			return false
		}
		return slices.ContainsFunc(tags, m.HasTag)
	}
	var out []*cairn.Memory
	rows := e.rowsAt(ctx)
	err = e.indexView(ctx, func(ctx context.Context, tx cairn.Tx) error {
		out = nil // run again when the index changed meanwhile
		for _, part := range []string{project, ""} {
			docs, ok, err := e.refDocs(ctx, tx, part, terms, types, maxTagDocs)
			if err != nil {
				return err
			}
			if !ok { // an index made by older rules: list them
				out = nil
				for _, t := range tags {
					ms, _, err := tx.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: types, Tags: []string{t},
						SkipTotal: true, Limit: limit})
					if err != nil {
						return err
					}
					out = append(out, ms...)
				}
				return nil
			}
			ms, err := rows.byDoc(ctx, tx, part, docs)
			if err != nil {
				return err
			}
			for _, m := range ms {
				if match(m) {
					out = append(out, m)
				}
			}
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	slices.SortFunc(out, func(a, b *cairn.Memory) int {
		if c := b.CreatedAt.Compare(a.CreatedAt); c != 0 {
			return c
		}
		return strings.Compare(b.ID, a.ID)
	})
	out = slices.CompactFunc(out, func(a, b *cairn.Memory) bool { return a.ID == b.ID })
	return rows.handOn(out[:min(len(out), limit)]), nil
}
