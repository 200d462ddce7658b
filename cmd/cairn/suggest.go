package main

import (
	"flag"
	"strings"

	"github.com/cairn-dev/cairn/lexical"
)

// didYouMean is " (did you mean X?)" for the name of names nearest to s,
// within two edits (or s a prefix of exactly one name), else "".
func didYouMean(s string, names []string) string {
	best, bestD, prefixed := "", 3, []string{}
	for _, n := range names {
		if d := lexical.EditDistance(s, n); d < bestD {
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
