// Package ingest reads agent transcripts into memories: one transcript
// (File), or every transcript of a project, or of all projects, found
// where Claude Code and Codex keep them (Discover, All). Reading is
// incremental: the offset read up to and what a failing test still waits
// for are kept per transcript and project in the database (a cursor,
// cairn.IngestService), so a second run reads only what was written
// since, and a transcript that has not grown is not read at all.
//
// The transcript is read and parsed where this package runs (the files
// are on the agent's machine); what it teaches is stored through a
// Service: the engine over the database, or a client of the server that
// answers for it. Both run the same code.
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
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/transcript"
)

// Service is what an ingest stores through, bound to the project the
// memories go to (the engine bound to it, or a client's project). The
// memories carry that project; a client stores them in its own.
type Service interface {
	// AddMemory stores one memory, as cairn.Service's does (the hooks
	// store the signals of a last message with it; File stores what a
	// transcript teaches with IngestBatch).
	AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error)
	// FindMemories finds the summary an earlier run wrote of the session
	// (by type and session), to continue it.
	FindMemories(ctx context.Context, f cairn.MemoryFilter) ([]*cairn.Memory, int, error)
	cairn.IngestService
	// IngestBatch stores the memories of one read with its cursor.
	cairn.IngestBatchService
}

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
	// Root is the project's folder on the machine the session ran on:
	// paths inside it are stored relative to it. "" takes the first
	// working directory the transcript names.
	Root string
	// Home is the user's home folder: paths under it, outside the
	// project, are stored as "~/…" (every /home/NAME, /Users/NAME is).
	Home string
	// Ask, when set, decides whether the agent should be asked for its
	// own account of the session (Report.Ask): once per session, only
	// when the session had something worth keeping and the agent
	// recorded nothing itself (transcript.Extractor.WorthAsking).
	Ask bool
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
	// Ask says why the agent should be asked to write what a later
	// session should know (Options.Ask); "" when it need not be. The
	// ingest recorded that it was asked: a later ingest of the session
	// says "" again.
	Ask string
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
// into opts.Project stopped and stores what it teaches through svc. It
// fails with EINVALID when the file cannot be read or the kind is
// unknown; a malformed line is counted, never fatal, and so is a memory
// the service refuses (Report.Failed, opts.OnWrite). A service that
// cannot be reached (EUNAVAILABLE) stops the ingest with that error, the
// cursor unmoved: an ingest run again reads the same lines, and what was
// stored folds into the memories already there.
func File(ctx context.Context, svc Service, path string, opts Options) (*Report, error) {
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
	cur, err := svc.FindIngestCursor(ctx, opts.Project, path)
	if err != nil {
		return nil, err
	}
	offset := cur.Offset
	rep.Offset = offset
	if offset == info.Size() {
		rep.Unchanged = true
		if opts.Ask {
			// An earlier capture of the session (after a tool call) read
			// every line: whether to ask is the state's it left.
			return rep, askUnchanged(ctx, svc, path, cur, opts, rep)
		}
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
	// The memories are stored after the read, with the cursor, in one
	// call (cairn.IngestBatchService).
	var read []*cairn.Memory
	store := func(mem *cairn.Memory) error {
		mem.Hat, mem.Agent = opts.Hat, who
		read = append(read, mem)
		return nil
	}
	x := transcript.NewExtractor(opts.Project)
	x.Hat = opts.Hat
	x.Paths = redact.Paths{Root: opts.Root, Home: opts.Home}
	if !rep.Restarted {
		// A test that failed in the lines read before may pass in these;
		// a state that cannot be read is dropped (it only holds pending
		// failures).
		_ = x.RestorePending(cur.Pending)
	}
	resumed := false
	onEntry := func(e transcript.Entry) error {
		if !resumed && e.SessionID != "" {
			resumed = true
			// Continue the summary written by the earlier runs.
			prev, err := sessionSummary(ctx, svc, opts.Project, e.SessionID)
			if cairn.ErrorCode(err) == cairn.EUNAVAILABLE || ctx.Err() != nil {
				return cmpErr(ctx.Err(), err)
			}
			x.Resume(prev) // none, or one that cannot be read: a summary of these lines only
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
		if cairn.ErrorCode(err) == cairn.EUNAVAILABLE {
			return nil, err
		}
		return nil, cairn.Errorf(cairn.EINVALID, "reading %s: %v", path, err)
	}
	if stats.Entries > 0 {
		if mem := x.Finish(); mem != nil {
			if err := distinctTitle(ctx, svc, opts.Project, mem); err != nil {
				return nil, err
			}
			if err := store(mem); err != nil {
				return nil, err
			}
		}
	}
	// An error met before, in this project, is one memory: its fix and
	// the count of sessions that met it grow.
	recurring := false
	for i, mem := range read {
		if mem.Type != "fix" || !strings.HasPrefix(mem.Key, "error:") {
			continue
		}
		old, err := knownError(ctx, svc, opts.Project, mem)
		if cairn.ErrorCode(err) == cairn.EUNAVAILABLE || ctx.Err() != nil {
			return nil, cmpErr(ctx.Err(), err)
		}
		if old != nil {
			var again bool
			read[i], again = transcript.MergeFix(old, mem)
			recurring = recurring || again
		}
	}
	if opts.Ask {
		if why := x.WorthAsking(recurring); why != "" {
			x.MarkAsked()
			rep.Ask = why
		}
	}
	rep.Offset = offset + stats.Bytes
	b := cairn.IngestBatch{Memories: read}
	if stats.Bytes > 0 || rep.Restarted {
		b.Cursor = &cairn.IngestCursor{Source: path, Offset: rep.Offset, Pending: x.Pending()}
	}
	if len(b.Memories) == 0 && b.Cursor == nil {
		return rep, nil
	}
	items, err := svc.IngestBatch(ctx, opts.Project, b)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, err
	}
	for i, it := range items {
		if it.Err != nil {
			rep.Failed++
		} else {
			rep.Status[it.Result.Status]++
			if it.Result.Status == cairn.StatusCreated || it.Result.Status == cairn.StatusUpdated {
				rep.Types[it.Result.Memory.Type]++
			}
		}
		if opts.OnWrite != nil {
			opts.OnWrite(read[i], it.Result, it.Err)
		}
	}
	return rep, nil
}

// askUnchanged decides, for a transcript with no line unread, whether
// the agent should be asked for its account (Report.Ask) from the state
// the last read left in the cursor, and records that it was asked.
func askUnchanged(ctx context.Context, svc Service, path string, cur *cairn.IngestCursor, opts Options, rep *Report) error {
	x := transcript.NewExtractor(opts.Project)
	if cur.Pending == "" || x.RestorePending(cur.Pending) != nil {
		return nil
	}
	why := x.WorthAsking(false)
	if why == "" {
		return nil
	}
	x.MarkAsked()
	c := *cur
	c.Source, c.Pending = path, x.Pending()
	if _, err := svc.IngestBatch(ctx, opts.Project, cairn.IngestBatch{Cursor: &c}); err != nil {
		return err
	}
	rep.Ask = why
	return nil
}

// maxTitleScan bounds the summaries read to keep a new summary's title
// apart from theirs.
const maxTitleScan = 500

// distinctTitle dates the title of a session summary when another
// session of the project has the same title (the same request on another
// day), so that the two can be told apart side by side.
func distinctTitle(ctx context.Context, svc Service, project string, sum *cairn.Memory) error {
	if sum.CreatedAt.IsZero() {
		return nil
	}
	mems, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: []string{"session"}, SkipTotal: true, Limit: maxTitleScan})
	if err != nil {
		if cairn.ErrorCode(err) == cairn.EUNAVAILABLE || ctx.Err() != nil {
			return cmpErr(ctx.Err(), err)
		}
		return nil // a title shared is no reason to lose the summary
	}
	same := func(a, b string) bool {
		return strings.EqualFold(strings.Join(strings.Fields(a), " "), strings.Join(strings.Fields(b), " "))
	}
	for _, m := range mems {
		if m.Key == sum.Key {
			if strings.HasPrefix(m.Title, sum.Title+" (") {
				sum.Title = m.Title // dated before: keep it
			}
			return nil
		}
	}
	for _, m := range mems {
		if same(m.Title, sum.Title) {
			sum.Title += " (" + sum.CreatedAt.UTC().Format("2006-01-02 15:04") + ")"
			return nil
		}
	}
	return nil
}

// knownError is the fix memory of project that holds the error of fix
// (by the tag of its first error line), or nil.
func knownError(ctx context.Context, svc Service, project string, fix *cairn.Memory) (*cairn.Memory, error) {
	tag := "error:" + strings.TrimPrefix(fix.Key, "error:")
	mems, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: []string{"fix"}, Tags: []string{tag},
		SkipTotal: true, Limit: 5})
	if err != nil {
		return nil, err
	}
	for _, m := range mems {
		if m.Key == fix.Key {
			return m, nil
		}
	}
	if len(mems) > 0 {
		return mems[0], nil
	}
	return nil, nil
}

// cmpErr is the first error that is not nil.
func cmpErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// sessionSummary is the summary an earlier run wrote of session in
// project, or nil.
func sessionSummary(ctx context.Context, svc Service, project, session string) (*cairn.Memory, error) {
	mems, _, err := svc.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: []string{"session"}, Session: session,
		SkipTotal: true, Limit: 20})
	if err != nil {
		return nil, err
	}
	key := transcript.SessionKey(session)
	for _, m := range mems {
		if m.Key == key {
			return m, nil
		}
	}
	return nil, nil
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
