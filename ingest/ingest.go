// Package ingest reads agent transcripts into memories: one transcript
// (File), or every transcript of a project, or of all projects, found
// where Claude Code and Codex keep them (Discover). Reading is
// incremental: the offset read up to and what a failing test still waits
// for are kept per transcript in the store, so a second run reads only
// what was written since, and a transcript that has not grown is not
// opened at all.
//
// Where the transcripts are:
//   - Claude Code: $CLAUDE_CONFIG_DIR/projects (default ~/.claude/projects),
//     one folder per working directory, one JSONL file per session;
//   - Codex: $CODEX_HOME/sessions (default ~/.codex/sessions), by date,
//     rollout-…-UUID.jsonl, the working directory in the first line.
//
// A transcript belongs to the project of its working directory (the cwd
// its lines name): the current project's are those whose cwd is its
// folder or inside it.
package ingest

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/transcript"
)

// The kinds of transcript.
const (
	Claude = "claude"
	Codex  = "codex"
)

// Options of an ingest.
type Options struct {
	Kind    string // Claude or Codex
	Project string // the project the memories go to
	Hat     string // the session's hat (critic: review findings become pitfalls)
	Agent   string // the agent of the session; "" means Kind
	// OnWrite, when set, is called after each memory is stored, or failed
	// to be (err set); a failed write is counted and the ingest goes on.
	OnWrite func(m *cairn.Memory, res *cairn.WriteResult, err error)
}

// Report says what an ingest did.
type Report struct {
	Path      string
	Offset    int64 // the offset read up to
	Unchanged bool  // the transcript had not grown: nothing was read
	Restarted bool  // the transcript was shorter than before: read again from its start
	transcript.Stats
	// Status counts the writes by their status (cairn.StatusCreated …).
	Status map[string]int
	// Types counts the memories created or updated by type.
	Types  map[string]int
	Failed int
}

func newReport(path string) *Report {
	return &Report{Path: path, Status: map[string]int{}, Types: map[string]int{}}
}

// Add adds o's counts to r.
func (r *Report) Add(o *Report) {
	r.Lines += o.Lines
	r.Entries += o.Entries
	r.Skipped += o.Skipped
	r.Malformed += o.Malformed
	r.Bytes += o.Bytes
	r.Failed += o.Failed
	for k, v := range o.Status {
		r.Status[k] += v
	}
	for k, v := range o.Types {
		r.Types[k] += v
	}
}

// File reads the transcript at path from where the last ingest of it
// stopped and stores what it teaches in opts.Project. It fails with
// EINVALID when the file cannot be read or the kind is unknown; a
// malformed line is counted, never fatal.
func File(ctx context.Context, eng *engine.Engine, path string, opts Options) (*Report, error) {
	if opts.Kind != Claude && opts.Kind != Codex {
		return nil, cairn.Errorf(cairn.EINVALID, "unknown transcript kind %q: claude or codex", opts.Kind)
	}
	path, err := filepath.Abs(path)
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "cannot resolve %s: %v", path, err)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", path, err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", path, err)
	}
	rep := newReport(path)
	st := eng.Store()
	var offset int64
	var pending string
	if err := st.View(ctx, func(tx cairn.Tx) error {
		if offset, err = tx.FindIngestOffset(ctx, path); err != nil {
			return err
		}
		pending, err = tx.FindIngestPending(ctx, path)
		return err
	}); err != nil {
		return nil, err
	}
	rep.Offset = offset
	if offset == info.Size() {
		rep.Unchanged = true
		return rep, nil
	}
	if offset > info.Size() {
		offset, rep.Restarted = 0, true // the file was rewritten
	}

	var codex transcript.CodexSession
	if opts.Kind == Codex {
		codex = transcript.CodexSessionOf(path, bufio.NewReader(f))
	}
	if _, err := f.Seek(offset, io.SeekStart); err != nil {
		return nil, cairn.Errorf(cairn.EINVALID, "cannot read %s: %v", path, err)
	}
	who := opts.Agent
	if who == "" {
		who = opts.Kind
	}
	store := func(mem *cairn.Memory) error {
		mem.Hat, mem.Agent = opts.Hat, who
		res, err := eng.AddMemory(ctx, mem)
		if err != nil && ctx.Err() != nil {
			return ctx.Err()
		}
		if err != nil {
			rep.Failed++
		} else {
			rep.Status[res.Status]++
			if res.Status == cairn.StatusCreated || res.Status == cairn.StatusUpdated {
				rep.Types[res.Memory.Type]++
			}
		}
		if opts.OnWrite != nil {
			opts.OnWrite(mem, res, err)
		}
		return nil
	}
	x := transcript.NewExtractor(opts.Project)
	x.Hat = opts.Hat
	if !rep.Restarted {
		// A test that failed in the lines read before may pass in these;
		// a state that cannot be read is dropped (it only holds pending
		// failures).
		_ = x.RestorePending(pending)
	}
	resumed := false
	onEntry := func(e transcript.Entry) error {
		if !resumed && e.SessionID != "" {
			resumed = true
			// Continue the summary written by the earlier runs.
			_ = st.View(ctx, func(tx cairn.Tx) error {
				prev, err := tx.FindMemoryByKey(ctx, opts.Project, "session", transcript.SessionKey(e.SessionID))
				if err == nil {
					x.Resume(prev)
				}
				return nil
			})
		}
		for _, mem := range x.Add(e) {
			if err := store(mem); err != nil {
				return err
			}
		}
		return nil
	}
	var stats transcript.Stats
	if opts.Kind == Codex {
		stats, err = transcript.ReadCodex(f, &codex, onEntry)
	} else {
		stats, err = transcript.Read(f, onEntry)
	}
	rep.Stats = stats
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, cairn.Errorf(cairn.EINVALID, "reading %s: %v", path, err)
	}
	if stats.Entries > 0 {
		if mem := x.Finish(); mem != nil {
			if err := store(mem); err != nil {
				return nil, err
			}
		}
	}
	rep.Offset = offset + stats.Bytes
	if stats.Bytes > 0 || rep.Restarted {
		if err := st.Update(ctx, func(tx cairn.Tx) error {
			return tx.PutIngestState(ctx, path, rep.Offset, x.Pending(), eng.Now())
		}); err != nil {
			return nil, err
		}
	}
	return rep, nil
}

// Summary is one line that says what was learned: "3 fixes, 2 decisions,
// 12 sessions (17 new, 2 updated, 1 reinforced)".
func (r *Report) Summary() string {
	s := ""
	for _, t := range sortedKeys(r.Types) {
		if s != "" {
			s += ", "
		}
		s += plural(r.Types[t], t)
	}
	if s == "" {
		s = "nothing new"
	}
	return fmt.Sprintf("%s (%d new, %d updated, %d reinforced, %d unchanged)", s, r.Status[cairn.StatusCreated],
		r.Status[cairn.StatusUpdated], r.Status[cairn.StatusReinforced], r.Status[cairn.StatusUnchanged])
}
