// Package jsonlmirror writes seed 001's per-type JSON Lines files of a
// project — <dir>/<type>.jsonl, one memory a line in the export format
// (package wire), oldest first — for agents that browse files rather than
// call a tool. Each file is written to a temporary name and renamed, so a
// reader never sees half a file; the file of a type that no longer has
// memories is removed. When to write them is the caller's: a command
// after its write, or a server's job (package jobs) after each change.
package jsonlmirror

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/wire"
)

// Mirror keeps one project's files in Dir.
type Mirror struct {
	Eng     *engine.Engine
	Project string
	Dir     string

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
