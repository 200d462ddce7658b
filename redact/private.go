package redact

import "strings"

const (
	openTag  = "<private>"
	closeTag = "</private>"
)

// hasPrefixFold reports whether s begins with prefix, ignoring ASCII case.
// prefix must be lower-case ASCII.
func hasPrefixFold(s, prefix string) bool {
	if len(s) < len(prefix) {
		return false
	}
	for i := 0; i < len(prefix); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != prefix[i] {
			return false
		}
	}
	return true
}

// hasPrivateOpen reports whether text contains an opening <private> tag.
func hasPrivateOpen(text string) bool {
	for i := 0; i < len(text); {
		k := strings.IndexByte(text[i:], '<')
		if k < 0 {
			return false
		}
		i += k
		if hasPrefixFold(text[i:], openTag) {
			return true
		}
		i++
	}
	return false
}

// stripPrivate removes every <private>…</private> span from text. It returns
// the remaining text, the offset in text of each of its bytes, and one
// private-span Finding per removed region (overlapping regions merged).
//
// Tags nest: a span ends at the </private> that balances its opening tag, and
// an unbalanced span runs to the end of text. A tag that only appears once
// another span between its halves is removed ("<pri<private>x</private>vate>")
// is honoured as well, so the result never contains an opening tag and
// stripping is idempotent.
func stripPrivate(text string) (string, []int, []Finding) {
	buf := make([]byte, 0, len(text))
	idx := make([]int, 0, len(text))
	var privs []Finding
	for i := 0; i < len(text); {
		c := text[i]
		buf = append(buf, c)
		idx = append(idx, i)
		i++
		if c != '>' || len(buf) < len(openTag) || !hasPrefixFold(string(buf[len(buf)-len(openTag):]), openTag) {
			continue
		}
		start := idx[len(idx)-len(openTag)]
		buf = buf[:len(buf)-len(openTag)]
		idx = idx[:len(idx)-len(openTag)]
		depth := 1
		j := i
		for depth > 0 {
			k := strings.IndexByte(text[j:], '<')
			if k < 0 {
				j = len(text)
				break
			}
			j += k
			switch {
			case hasPrefixFold(text[j:], openTag):
				depth++
				j += len(openTag)
			case hasPrefixFold(text[j:], closeTag):
				depth--
				j += len(closeTag)
			default:
				j++
			}
		}
		privs = appendMerged(privs, Finding{Kind: "private-span", Start: start, End: j})
		i = j
	}
	return string(buf), idx, privs
}

// appendMerged appends f to fs, which is sorted by Start with disjoint
// members, merging it with every member it overlaps.
func appendMerged(fs []Finding, f Finding) []Finding {
	for len(fs) > 0 && fs[len(fs)-1].End > f.Start {
		last := fs[len(fs)-1]
		fs = fs[:len(fs)-1]
		f.Start = min(f.Start, last.Start)
		f.End = max(f.End, last.End)
	}
	return append(fs, f)
}
