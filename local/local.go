// Package local is cairn's surface (cairn.App) on the engine of this
// process: the engine (package engine), the blocks and lookups of package
// recall and the iteration memory of package loop, put together for one
// project. A server's client (package client) is the same surface over
// REST; `cairn serve` answers its client with a Project. A transport
// takes the surface as cairn.App and runs the same code with either.
package local

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/jobs"
	"github.com/cairn-dev/cairn/jsonlmirror"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/wire"
)

// Project is the engine bound to one project (ids are looked up in that
// project and among global-scope memories only, as
// engine.Engine.WithProject gives), with the blocks and lookups of package
// recall and the iteration memory of package loop. Its clock is the
// engine's. Safe for concurrent use when the engine and Options.Record
// are.
type Project struct {
	*engine.Engine
	loop.Local
	opts   Options
	mirror *mirror
}

// Options configure a Project; the zero value (or nil) is the defaults.
type Options struct {
	// Record records the use of what a context block or a lookup shows,
	// when it asks for it; nil records with Engine.RecordUse, at once. A
	// long-running server passes its batching queue.
	Record recall.Recorder
	// Settings, when not nil, are the settings context blocks are built
	// with instead of the project's stored ones: the command that owns the
	// project's folder builds with its own files.
	Settings *cairn.Settings
	// Root returns a project's folder, for the context blocks whose call
	// names none: the memories whose files changed there are marked
	// stale. nil, or "", checks nothing. It is asked only when a block
	// needs it (a server reads it from the database).
	Root func(project string) string
	// Mirror, when not nil, is where the surface of a command that no
	// server follows keeps the project's JSON Lines files (a server's
	// job keeps them as it runs: package jobs); see Finish.
	Mirror *Mirror
}

// Mirror is where a surface keeps its project's per-type JSON Lines
// files (package jsonlmirror), as jsonlmirror.Folder gives them.
type Mirror struct {
	// Dir is the files' folder; "": the project has none.
	Dir string
	// Register says that Dir is the project's own: it is registered for
	// the mirror of the database's servers (jobs.SetMirrorFolder), so
	// that they keep it whichever process writes next ("" included: the
	// project has no files any more).
	Register bool
	// Log gets a line for each failure to register or write the files;
	// nil discards them.
	Log io.Writer
}

// mirror is the state of Options.Mirror: where the project's events
// stood when the surface was made.
type mirror struct {
	Mirror
	from int64 // -1: not known, the files are written anyway
}

var _ cairn.App = Project{}

// New returns the surface of project on eng.
func New(eng *engine.Engine, project string, opts *Options) Project {
	var o Options
	if opts != nil {
		o = *opts
	}
	eng = eng.WithProject(project)
	p := Project{Engine: eng, Local: loop.Local{Svc: eng, Project: project}, opts: o}
	if m := o.Mirror; m != nil && (m.Dir != "" || m.Register) {
		p.mirror = &mirror{Mirror: *m, from: -1}
		if p.mirror.Log == nil {
			p.mirror.Log = io.Discard
		}
		if seq, err := eng.LastEventSeq(context.Background()); err == nil {
			p.mirror.from = seq
		}
	}
	return p
}

// Finish keeps the project's JSON Lines files (Options.Mirror) once the
// surface's work is done: when the project changed since New
// (jsonlmirror.Changed: a write of this surface, or of another process
// meanwhile), it registers Mirror.Dir when Mirror.Register and rewrites
// the files when Mirror.Dir is set. A failure is said on Mirror.Log and
// changes nothing else. Without Options.Mirror it does nothing; the
// surface stays usable after it.
func (p Project) Finish(ctx context.Context) {
	m := p.mirror
	if m == nil {
		return
	}
	project := p.Local.Project
	if m.from >= 0 {
		changed, err := jsonlmirror.Changed(ctx, p.Engine, project, m.from)
		if err != nil {
			fmt.Fprintf(m.Log, "cairn: cannot tell whether the JSON Lines files of project %s are behind: %s\n", project, oneLine(err))
			return
		}
		if !changed {
			return
		}
	}
	if err := RegisterMirror(ctx, p.Engine, project, &m.Mirror); err != nil {
		fmt.Fprintf(m.Log, "cairn: cannot register the JSON Lines folder of project %s: %s\n", project, oneLine(err))
	}
	if m.Dir == "" {
		return
	}
	if _, err := (&jsonlmirror.Mirror{Eng: p.Engine, Project: project, Dir: m.Dir}).Sync(ctx); err != nil {
		fmt.Fprintf(m.Log, "cairn: cannot keep the JSON Lines files in %s: %s\n", m.Dir, oneLine(err))
	}
	if seq, err := p.Engine.LastEventSeq(ctx); err == nil {
		m.from = seq
	}
}

// RegisterMirror registers m.Dir as the folder of project's JSON Lines
// files for the mirror of the database's servers (jobs.SetMirrorFolder)
// when m.Register; a server does it for its own project when it starts.
func RegisterMirror(ctx context.Context, eng *engine.Engine, project string, m *Mirror) error {
	if m == nil || !m.Register {
		return nil
	}
	return jobs.SetMirrorFolder(ctx, eng, project, m.Dir)
}

// oneLine is err's message on one line.
func oneLine(err error) string { return strings.Join(strings.Fields(cairn.ErrorMessage(err)), " ") }

// Named is the same surface bound to project instead, recording uses as
// this one does (Options.Settings, this project's, do not apply).
func (p Project) Named(project string) cairn.App {
	return New(p.Engine, project, &Options{Record: p.opts.Record, Root: p.opts.Root})
}

// record is how the use of what is shown is recorded.
func (p Project) record() recall.Recorder {
	if p.opts.Record != nil {
		return p.opts.Record
	}
	return p.Engine.RecordUse
}

// LoopContext implements cairn.LoopService: the block of the next
// iteration on a task (recall.LoopBlock).
func (p Project) LoopContext(ctx context.Context, req cairn.LoopContextRequest) (*cairn.LoopContext, error) {
	req.Project = p.Local.Project
	return recall.LoopBlock(ctx, p.Engine, req)
}

// FirstModel is what LoopModel answers for a task of a project with
// nothing recorded (loop.FirstChoice): the choice of a command that
// finds no database to open.
func FirstModel(tiers []string, p cairn.LoopPolicy) *cairn.LoopChoice {
	return loop.FirstChoice(tiers, p)
}

// ExplainQuery is what ExplainQuery answers in a process with no
// database to open: an engine's defaults.
func ExplainQuery(text string) *cairn.QueryExplanation {
	return engine.DefaultQueryExplanation(text)
}

// Lookup implements cairn.LookupService on the engine of this process, as
// recall.AnswerLookup does.
func (p Project) Lookup(ctx context.Context, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	req.Project = p.Local.Project
	return recall.AnswerLookup(ctx, p.Engine, req, p.record())
}

// Context implements cairn.ContextBlockService, as recall.AnswerCall does,
// with Options.Settings when set and Options.Root when the call names no
// folder.
func (p Project) Context(ctx context.Context, call cairn.ContextCall) (*cairn.ContextBlock, error) {
	call.Project = p.Local.Project
	if err := recall.CheckMonths(call.Conversations); err != nil {
		return nil, err
	}
	if call.Root == "" && p.opts.Root != nil {
		call.Root = p.opts.Root(call.Project)
	}
	a, err := recall.AnswerCall(ctx, p.Engine, p.opts.Settings, call, p.record())
	switch {
	case a != nil || err == nil:
		return a, err
	case errors.Is(err, hook.ErrTooLong):
		return nil, cairn.Errorf(cairn.EINVALID, "no block fits in max_json_chars %d", call.MaxJSONChars)
	}
	return nil, recall.AsInvalid(err)
}

// FindConflicts implements cairn.ConflictService at the engine's clock
// (recall.Conflicts).
func (p Project) FindConflicts(ctx context.Context) ([]cairn.Conflict, error) {
	return recall.Conflicts(ctx, p.Engine, p.Local.Project, p.Engine.Now())
}

// RecallByValue implements cairn.ValueRecallService (recall.ByValue). Its
// use is recorded at once, never queued (Options.Record): a recall shows
// use counts, and the next one must count this one.
func (p Project) RecallByValue(ctx context.Context, r cairn.ValueRecall) ([]*cairn.Memory, error) {
	return recall.ByValue(ctx, p.Engine, p.Local.Project, r, p.Engine.RecordUse)
}

// Capture implements cairn.CaptureService (capture.Store).
func (p Project) Capture(ctx context.Context, r cairn.CaptureRequest) (*cairn.CaptureReport, error) {
	return capture.Store(ctx, p.Engine, p.Local.Project, r)
}

// RecordTaskEvent implements cairn.TaskService (capture.RecordTask).
func (p Project) RecordTaskEvent(ctx context.Context, ev cairn.TaskEvent) (*cairn.TaskReport, error) {
	return capture.RecordTask(ctx, p.Engine, p.Local.Project, ev)
}

// Subscribe implements cairn.EventService (engine.Engine.Subscribe, in the
// service's project).
func (p Project) Subscribe(ctx context.Context, after int64) (cairn.Subscription, error) {
	s, err := p.Engine.Subscribe(ctx, p.Local.Project, after)
	if err != nil {
		return nil, err
	}
	return s, nil
}

// largeImport is how many memories written make an import fold the
// store's log into its main file when it is done.
const largeImport = 1000

// ImportStream implements cairn.StreamImportService. A large import
// leaves a large write-ahead log: it is checkpointed at once, so that the
// next processes open the database quickly (a server, which keeps the
// database open, folds its log as it goes).
func (p Project) ImportStream(ctx context.Context, r io.Reader, opts cairn.ImportOptions) (*cairn.ImportReport, error) {
	rep, err := p.Engine.Import(ctx, wire.Read(r), opts)
	if err != nil {
		return nil, err
	}
	if st := p.Engine.Store(); rep.Created+rep.Updated > largeImport && st.SupportsCheckpoint() {
		if err := st.Checkpoint(ctx); err != nil {
			return nil, err
		}
	}
	return rep, nil
}
