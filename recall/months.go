package recall

import (
	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
)

// maxMonths bounds the months a request may name.
const maxMonths = 1200

// CheckMonths reports a month that is not YYYY-MM (EINVALID).
func CheckMonths(months []string) error {
	if len(months) > maxMonths {
		return cairn.Errorf(cairn.EINVALID, "conversations: %d months is more than %d", len(months), maxMonths)
	}
	for _, m := range months {
		if !conversation.ValidMonth(m) {
			return cairn.Errorf(cairn.EINVALID, "conversations: %q is not a month (YYYY-MM)", m)
		}
	}
	return nil
}
