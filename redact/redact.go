package redact

import (
	"sort"
	"strings"
)

// Finding is one removed span of the text passed to [String].
//
// Kind names what was found: one of the kinds listed in the package
// documentation ("aws-access-key", "github-token", "private-key", "jwt",
// "password-assignment", "url-credentials", "high-entropy", "private-span",
// ...). Start and End are byte offsets into the ORIGINAL text (the argument
// of String, not its result), with Start < End; text[Start:End] is exactly
// what was replaced by "[REDACTED:<Kind>]" (or, for "private-span", removed
// including its tags). Findings are sorted by Start and, with one exception,
// do not overlap: a secret that only became contiguous after a private span
// inside it was removed covers that span too.
type Finding struct {
	Kind       string
	Start, End int
}

// markerPrefix starts the marker that replaces a secret of kind k in the
// output of String: "[REDACTED:" + k + "]".
const markerPrefix = "[REDACTED:"

// kindInternal is the kind used when String meets an internal error: it then
// fails closed and redacts the whole text (this is a safety net; it is not
// expected to happen).
const kindInternal = "redaction-error"

// testPanicHook, when set by tests, sees any panic String recovered from.
var testPanicHook func(v any)

// String returns text with every secret replaced by "[REDACTED:<kind>]" and
// every <private>…</private> span removed entirely (tags included; tags are
// matched case-insensitively, may span lines, nest, and an unclosed
// <private> removes everything up to the end of text), plus what was found,
// sorted by position.
//
// Text without secrets or private spans is returned unchanged (the very same
// string) with a nil slice. The result is idempotent:
// String(String(x)) returns its argument unchanged. String is safe for
// concurrent use, never panics (including on invalid UTF-8), and returns
// valid UTF-8 whenever text is valid UTF-8.
func String(text string) (out string, findings []Finding) {
	if text == "" {
		return text, nil
	}
	ready()
	defer func() {
		// Fail closed: never hand back possibly unredacted text.
		if v := recover(); v != nil {
			if testPanicHook != nil {
				testPanicHook(v)
			}
			out = markerPrefix + kindInternal + "]"
			findings = []Finding{{Kind: kindInternal, Start: 0, End: len(text)}}
		}
	}()

	work := text
	var privs []Finding
	var pieces []piece
	if hasPrivateOpen(text) {
		var origIdx []int
		work, origIdx, privs = stripPrivate(text)
		pieces = piecesFromIndex(origIdx)
	}

	spans := detect(work)
	if len(spans) == 0 {
		if len(privs) == 0 {
			return text, nil
		}
		return work, privs
	}
	if pieces == nil {
		pieces = []piece{{t: 0, n: len(work), o: 0}}
	}
	// Redact, then look again at the result: replacing a secret changes the
	// context of its neighbours, and a rare heuristic decision can flip.
	// Iterating to a fixed point is what makes String idempotent.
	for pass := 0; len(spans) > 0 && pass < maxPasses; pass++ {
		work, pieces = apply(work, pieces, spans)
		spans = detect(work)
	}

	findings = make([]Finding, 0, len(privs)+len(pieces))
	findings = append(findings, privs...)
	for _, p := range pieces {
		if p.kind != "" {
			findings = append(findings, Finding{Kind: p.kind, Start: p.o, End: p.oEnd})
		}
	}
	if len(privs) > 0 {
		sort.SliceStable(findings, func(i, j int) bool { return findings[i].Start < findings[j].Start })
	}
	return work, findings
}

// maxPasses bounds the redaction passes of String; in practice the second
// pass finds nothing.
const maxPasses = 8

// detect returns the disjoint secret spans of s, sorted by start.
func detect(s string) []span {
	sc := scanner{s: s}
	sc.scan()
	return sc.finish()
}

// piece maps a stretch of the working text back to the original text:
// work[t:t+n] is either a copy of original[o:o+n] (kind == "") or the marker
// of a secret of that kind that replaced original[o:oEnd].
type piece struct {
	t, n    int
	o, oEnd int
	kind    string
}

// piecesFromIndex turns a per-byte offset map into literal pieces.
func piecesFromIndex(idx []int) []piece {
	var ps []piece
	for k := 0; k < len(idx); {
		j := k + 1
		for j < len(idx) && idx[j] == idx[j-1]+1 {
			j++
		}
		ps = append(ps, piece{t: k, n: j - k, o: idx[k]})
		k = j
	}
	return ps
}

// findPiece returns the index of the piece containing offset t.
func findPiece(ps []piece, t int) int {
	return sort.Search(len(ps), func(i int) bool { return ps[i].t+ps[i].n > t })
}

// apply replaces spans of work with markers and returns the new text and
// its pieces. Spans that touch an earlier marker are widened to cover it.
func apply(work string, ps []piece, spans []span) (string, []piece) {
	for k := range spans {
		sp := &spans[k]
		if p := ps[findPiece(ps, sp.start)]; p.kind != "" {
			sp.start = p.t
		}
		if p := ps[findPiece(ps, sp.end-1)]; p.kind != "" {
			sp.end = p.t + p.n
		}
	}
	spans = mergeSpans(spans)

	var b strings.Builder
	size := len(work)
	for _, sp := range spans {
		size += len(markerPrefix) + len(sp.kind) + 1 - (sp.end - sp.start)
	}
	b.Grow(max(size, 0))
	out := make([]piece, 0, len(ps)+2*len(spans))
	// copyRange appends work[x:y] and its pieces, clipped.
	copyRange := func(x, y int) {
		if x >= y {
			return
		}
		for k := findPiece(ps, x); k < len(ps) && ps[k].t < y; k++ {
			p := ps[k]
			lo, hi := max(p.t, x), min(p.t+p.n, y)
			np := piece{t: b.Len() + lo - x, n: hi - lo, kind: p.kind}
			if p.kind == "" {
				np.o = p.o + lo - p.t
			} else {
				np.o, np.oEnd = p.o, p.oEnd
			}
			out = append(out, np)
		}
		b.WriteString(work[x:y])
	}
	last := 0
	for _, sp := range spans {
		copyRange(last, sp.start)
		first, lastP := ps[findPiece(ps, sp.start)], ps[findPiece(ps, sp.end-1)]
		o := first.o
		if first.kind == "" {
			o += sp.start - first.t
		}
		oEnd := lastP.oEnd
		if lastP.kind == "" {
			oEnd = lastP.o + sp.end - lastP.t
		}
		out = append(out, piece{t: b.Len(), n: len(markerPrefix) + len(sp.kind) + 1, o: o, oEnd: oEnd, kind: sp.kind})
		b.WriteString(markerPrefix)
		b.WriteString(sp.kind)
		b.WriteByte(']')
		last = sp.end
	}
	copyRange(last, len(work))
	return b.String(), out
}

// Text returns text redacted as by [String], without the findings. Redact
// a text before cutting it (to a title, a preview, a log line): a cut
// secret no longer has the shape that identifies it.
func Text(text string) string {
	out, _ := String(text)
	return out
}

// Contains reports whether [String] would change text, that is whether text
// holds at least one secret or <private> span.
func Contains(text string) bool {
	_, f := String(text)
	return len(f) > 0
}
