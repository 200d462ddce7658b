package server

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"
)

// Every line of a server's log says when it was written, however the
// lines come: several in one write, one in several writes, from
// goroutines at once.
func TestTimedLogStampsEveryLine(t *testing.T) {
	t.Parallel()
	var b syncBuffer
	at := time.Date(2026, 3, 4, 5, 6, 7, 0, time.FixedZone("x", 3600))
	w := TimedLog(&b, func() time.Time { return at })
	fmt.Fprintf(w, "cairn: one\ncairn: two\n")
	fmt.Fprint(w, "cairn: three, ")
	fmt.Fprint(w, "written in two\n")
	var wg sync.WaitGroup
	for i := range 20 {
		wg.Go(func() { fmt.Fprintf(w, "cairn: line %d\n", i) })
	}
	wg.Wait()
	lines := strings.Split(strings.TrimSuffix(b.String(), "\n"), "\n")
	if len(lines) != 23 {
		t.Fatalf("%d lines: %q", len(lines), b.String())
	}
	for _, l := range lines {
		if !strings.HasPrefix(l, "2026-03-04T04:06:07Z cairn: ") {
			t.Errorf("line %q is not stamped with the time in UTC", l)
		}
	}
	if lines[2] != "2026-03-04T04:06:07Z cairn: three, written in two" {
		t.Errorf("a line written in two parts: %q", lines[2])
	}
}
