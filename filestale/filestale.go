// Package filestale says whether a memory may no longer hold: one of the
// files it refers to was modified after the memory was written or last
// verified (`cairn verify`).
package filestale

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
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
		matches := glob(filepath.Join(c.Root, filepath.FromSlash(ref)), time.Now())
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

// The files each pattern matched, kept for globTTL: a server checks the
// references of every memory of every block it builds, and reading their
// folders again each time cost it more than the rest of the check. The
// files' modification times are read anew on every check, so a change to
// a file counts at once; a file that appears or disappears counts within
// globTTL.
var (
	globTTL  = 2 * time.Second
	globMax  = 4096 // patterns kept; the cache starts over when full
	globsMu  sync.Mutex
	globsHit map[string]globbed
)

type globbed struct {
	files []string
	at    time.Time
}

// glob is filepath.Glob(pattern), as it was at most globTTL before now.
// The slice returned is shared: callers do not change it.
func glob(pattern string, now time.Time) []string {
	globsMu.Lock()
	g, ok := globsHit[pattern]
	globsMu.Unlock()
	if ok && now.Sub(g.at) < globTTL && !now.Before(g.at) {
		return g.files
	}
	files, _ := filepath.Glob(pattern)
	globsMu.Lock()
	if globsHit == nil || len(globsHit) >= globMax {
		globsHit = map[string]globbed{}
	}
	globsHit[pattern] = globbed{files: files, at: now}
	globsMu.Unlock()
	return files
}
