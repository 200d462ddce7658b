// Package jsonlmirror keeps seed 001's per-type JSON Lines files of a
// project — <dir>/<type>.jsonl, one memory a line in the export format
// (package wire), oldest first — up to date after writes, for agents that
// browse files rather than call a tool.
//
// Run writes the files once, then follows the project's events (engine
// Subscribe: writes by any process sharing the store) and writes them
// again Debounce after the last change, so a burst of writes (an ingest,
// an import) costs one rewrite. The use of a memory in a context (its use
// count) is not a change worth a rewrite; every other event is. Each file
// is written to a temporary name and renamed, so a reader never sees half
// a file; the file of a type that no longer has memories is removed.
package jsonlmirror

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/wire"
)

// DefaultDebounce is how long after the last change the files are written.
const DefaultDebounce = 2 * time.Second

// Mirror keeps one project's files in Dir.
type Mirror struct {
	Eng      *engine.Engine
	Project  string
	Dir      string
	Debounce time.Duration // 0 means DefaultDebounce
	// Written, when set, is called after each write with the number of
	// memories per type written, or the error.
	Written func(counts map[string]int, err error)

	wrote map[string]bool // types written before: their files are removed when they empty
}

// Sync writes the files now.
func (m *Mirror) Sync(ctx context.Context) (map[string]int, error) {
	mems, _, err := m.Eng.FindMemories(ctx, cairn.MemoryFilter{Project: m.Project, Sort: cairn.SortCreatedAsc, SkipTotal: true})
	if err != nil {
		return nil, err
	}
	if m.wrote == nil {
		m.wrote = map[string]bool{}
	}
	owned := m.Eng.Policies().Names()
	for t := range m.wrote {
		owned = append(owned, t)
	}
	counts, err := WriteDir(m.Dir, mems, owned)
	for t := range counts {
		m.wrote[t] = true
	}
	return counts, err
}

// Run writes the files, then again after each burst of changes, until ctx
// ends. It returns ctx's end (nil), or the error that stopped the event
// stream; a failed write is reported to Written and does not stop it.
func (m *Mirror) Run(ctx context.Context) error {
	debounce := m.Debounce
	if debounce <= 0 {
		debounce = DefaultDebounce
	}
	sub, err := m.Eng.Subscribe(ctx, m.Project, -1)
	if err != nil {
		return err
	}
	defer sub.Close()
	m.write(ctx)
	var timer *time.Timer
	var fire <-chan time.Time
	for {
		select {
		case <-ctx.Done():
			return nil
		case ev, ok := <-sub.Events():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return sub.Err()
			}
			if ev.Action == cairn.ActionUsed {
				continue
			}
			if timer == nil {
				timer = time.NewTimer(debounce)
			} else {
				timer.Reset(debounce)
			}
			fire = timer.C
		case <-fire:
			fire = nil
			m.write(ctx)
		}
	}
}

func (m *Mirror) write(ctx context.Context) {
	counts, err := m.Sync(ctx)
	if ctx.Err() != nil {
		return
	}
	if m.Written != nil {
		m.Written(counts, err)
	}
}

// WriteDir writes mems as one <type>.jsonl file per type into dir
// (created when missing), and removes the files of the types in owned
// that mems no longer has (other files are left alone). It returns how
// many memories each file holds.
func WriteDir(dir string, mems []*cairn.Memory, owned []string) (map[string]int, error) {
	return WriteDirWith(dir, mems, owned, wire.WriteJSONL)
}

// WriteDirWith is WriteDir with each file's lines written by write
// (wire.WriteJSONL, or a writer of another shape such as wire.WriteItems).
func WriteDirWith(dir string, mems []*cairn.Memory, owned []string, write func(io.Writer, []*cairn.Memory) error) (map[string]int, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, cairn.WrapError(cairn.EINVALID, err, "cannot create %s", dir)
	}
	byType := map[string][]*cairn.Memory{}
	for _, mem := range mems {
		byType[mem.Type] = append(byType[mem.Type], mem)
	}
	names := make([]string, 0, len(byType))
	for t := range byType {
		names = append(names, t)
	}
	sort.Strings(names)
	counts := map[string]int{}
	for _, t := range names {
		if !cairn.ValidName(t) || strings.Contains(t, "/") {
			continue // a type that cannot be a file name here
		}
		path := filepath.Join(dir, t+".jsonl")
		tmp, err := os.CreateTemp(dir, "."+t+".jsonl.*")
		if err != nil {
			return counts, cairn.WrapError(cairn.EINVALID, err, "cannot write in %s", dir)
		}
		err = write(tmp, byType[t])
		if cerr := tmp.Close(); err == nil {
			err = cerr
		}
		if err == nil {
			err = os.Rename(tmp.Name(), path)
		}
		if err != nil {
			os.Remove(tmp.Name())
			return counts, cairn.WrapError(cairn.EINVALID, err, "cannot write %s", path)
		}
		counts[t] = len(byType[t])
	}
	var errs []error
	for _, t := range owned {
		if byType[t] != nil || !cairn.ValidName(t) || strings.Contains(t, "/") {
			continue
		}
		if err := os.Remove(filepath.Join(dir, t+".jsonl")); err != nil && !errors.Is(err, os.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return counts, errors.Join(errs...)
}
