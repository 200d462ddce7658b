package main

import (
	"flag"
	"strings"
)

// didYouMean is " (did you mean X?)" for the name of names nearest to s,
// within two edits (or s a prefix of exactly one name), else "".
func didYouMean(s string, names []string) string {
	best, bestD, prefixed := "", 3, []string{}
	for _, n := range names {
		if d := editDistance(s, n); d < bestD {
			best, bestD = n, d
		}
		if len(s) >= 2 && strings.HasPrefix(n, s) {
			prefixed = append(prefixed, n)
		}
	}
	if best == "" && len(prefixed) == 1 {
		best = prefixed[0]
	}
	if best == "" || best == s {
		return ""
	}
	return " (did you mean " + best + "?)"
}

// editDistance is the Levenshtein distance of a and b, by bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// flagSuggestion is didYouMean for the flag an error of fs names ("flag
// provided but not defined: -tagz"), with the flag's dashes.
func flagSuggestion(fs *flag.FlagSet, err error) string {
	const undefined = "flag provided but not defined: "
	msg := err.Error()
	if !strings.HasPrefix(msg, undefined) {
		return ""
	}
	given := strings.TrimLeft(strings.TrimPrefix(msg, undefined), "-")
	var names []string
	fs.VisitAll(func(f *flag.Flag) { names = append(names, f.Name) })
	s := didYouMean(given, names)
	if s == "" {
		return ""
	}
	return strings.Replace(s, "mean ", "mean --", 1)
}
