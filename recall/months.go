package recall

import (
	"os"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
)

var monthRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`) })

// maxMonths bounds the months a request may name.
const maxMonths = 1200

// CheckMonths reports a month that is not YYYY-MM (EINVALID).
func CheckMonths(months []string) error {
	if len(months) > maxMonths {
		return cairn.Errorf(cairn.EINVALID, "conversations: %d months is more than %d", len(months), maxMonths)
	}
	for _, m := range months {
		if !monthRE().MatchString(m) {
			return cairn.Errorf(cairn.EINVALID, "conversations: %q is not a month (YYYY-MM)", m)
		}
	}
	return nil
}

// ConversationMonths lists the months of project's conversation log in
// the data folder dir (seed 001's conversations/<project>/YYYY-MM.jsonl),
// newest first; none when there is no log.
func ConversationMonths(dir, project string) []string {
	l := conversation.Log{Dir: dir, Project: project}
	ents, err := os.ReadDir(l.Path())
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if m, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && !e.IsDir() && monthRE().MatchString(m) {
			out = append(out, m)
		}
	}
	slices.Sort(out)
	slices.Reverse(out)
	return out
}
