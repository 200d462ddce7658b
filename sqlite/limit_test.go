package sqlite

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestNoBareLimitParameter checks the backend's SQL for a LIMIT given as
// a bare parameter, which SQLite prepares again on every run (sql.go):
// each is written `?+0`.
func TestNoBareLimitParameter(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	bare := regexp.MustCompile(`(?i)\bLIMIT\s+\?\d*(\s|\)|` + "`" + `|$)`)
	n := 0
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for i, line := range strings.Split(string(b), "\n") {
			if strings.HasPrefix(strings.TrimSpace(line), "//") {
				continue
			}
			if strings.Contains(strings.ToUpper(line), "LIMIT ?") {
				n++
			}
			if bare.MatchString(line) {
				t.Errorf("%s:%d: a LIMIT as a bare parameter: %s", f, i+1, strings.TrimSpace(line))
			}
		}
	}
	if n == 0 {
		t.Fatal("no LIMIT parameter found: the check reads nothing")
	}
}
