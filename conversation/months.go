package conversation

import (
	"os"
	"slices"
	"strings"
)

// ValidMonth reports whether m names a month as the log's files do
// (YYYY-MM).
func ValidMonth(m string) bool { return monthRE().MatchString(m) }

// MonthsNewestFirst lists the months of project's log in the data folder
// dir, newest first, for the memory index of a context block; none when
// there is no log.
func MonthsNewestFirst(dir, project string) []string {
	l := Log{Dir: dir, Project: project}
	ents, err := os.ReadDir(l.Path())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if m, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !e.IsDir() && ValidMonth(m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}
