// Package filestale says whether a memory may no longer hold: one of the
// files it refers to was modified after the memory was written or last
// verified (`cairn verify`).
package filestale

import (
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Value is what a possibly stale memory is worth in a context block, as a
// share of its value.
const Value = 0.5

// maxMatches bounds the files one glob of a memory is checked with.
const maxMatches = 64

// Checker checks memories against the files under Root; it reads each
// reference's files once. File references are paths or globs relative to
// Root ("**" is not expanded); a reference that matches nothing is not a
// change. The zero Root checks nothing. Not safe for concurrent use.
type Checker struct {
	Root string
	seen map[string]time.Time
}

// Stale reports whether a file m refers to changed after m was written or
// verified.
func (c *Checker) Stale(m *cairn.Memory) bool {
	if c.Root == "" || len(m.FileRefs) == 0 {
		return false
	}
	since := m.UpdatedAt
	if m.VerifiedAt.After(since) {
		since = m.VerifiedAt
	}
	for _, ref := range m.FileRefs {
		if c.newest(ref).After(since) {
			return true
		}
	}
	return false
}

// newest is the newest modification time of the files ref matches.
func (c *Checker) newest(ref string) time.Time {
	if t, ok := c.seen[ref]; ok {
		return t
	}
	var newest time.Time
	if !strings.Contains(ref, "**") && !filepath.IsAbs(ref) && !strings.HasPrefix(filepath.Clean(ref), "..") {
		matches, _ := filepath.Glob(filepath.Join(c.Root, filepath.FromSlash(ref)))
		for _, f := range matches[:min(len(matches), maxMatches)] {
			if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() && fi.ModTime().After(newest) {
				newest = fi.ModTime()
			}
		}
	}
	if c.seen == nil {
		c.seen = map[string]time.Time{}
	}
	c.seen[ref] = newest
	return newest
}
