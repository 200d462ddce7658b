// Package jsonlmirror writes seed 001's per-type JSON Lines files of a
// project — <dir>/<type>.jsonl, one memory a line in the export format
// (package wire), oldest first — for agents that browse files rather than
// call a tool. Each file is written to a temporary name and renamed, so a
// reader never sees half a file; the file of a type that no longer has
// memories is removed. Where they go is Folder's rule; they are rewritten
// when the project Changed: by a server's job (package jobs) as it runs,
// and by the surface of a command that no server follows (package local)
// once its work is done.
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

// Folder is the folder of a project's files as export.jsonl_dir
// (setting) names it: "" when none is set; an absolute path as it is; a
// relative one in the project's folder (projectFolder), else, when that
// is not known ("" ), in wd. register reports whether the folder is the
// project's own, to be registered for the mirror of the database's
// servers (jobs.SetMirrorFolder), none included: when the project's
// folder is known, or the setting is absolute. A folder found from wd
// is only written by the command that runs there.
func Folder(setting, projectFolder, wd string) (dir string, register bool) {
	switch {
	case setting == "" || filepath.IsAbs(setting):
		return setting, projectFolder != "" || setting != ""
	case projectFolder != "":
		return filepath.Join(projectFolder, setting), true
	}
	return filepath.Join(wd, setting), false
}

// Changed reports whether project has an event after seq that is not
// the use of a memory: its files are then to be rewritten (a use count
// is not worth a rewrite).
func Changed(ctx context.Context, eng *engine.Engine, project string, seq int64) (bool, error) {
	const page = 512
	for {
		var evs []cairn.Event
		err := eng.Store().View(ctx, func(tx cairn.Tx) error {
			var err error
			evs, err = tx.FindEvents(ctx, cairn.EventFilter{Project: project, After: seq, Limit: page})
			return err
		})
		if err != nil {
			return false, err
		}
		for _, ev := range evs {
			if ev.Action != cairn.ActionUsed {
				return true, nil
			}
		}
		if len(evs) < page {
			return false, nil
		}
		seq = evs[len(evs)-1].Seq
	}
}
