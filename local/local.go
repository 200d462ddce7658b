// Package local is the service of one project on the engine of this
// process: what a server's client (package client) is over REST. A
// transport that takes the service as interfaces (the MCP server, the
// CLI's commands) gets a Project when it opens the database itself and a
// client.Project when a server answers for it, and runs the same code
// with either.
package local

import (
	"context"
	"io"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/loop"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/wire"
)

// Project is the engine bound to one project (ids are looked up in that
// project and among global-scope memories only, as
// engine.Engine.WithProject gives), with the blocks and lookups of package
// recall (context blocks, lookups by name, the next iteration's block of
// an agent loop) and the iteration memory of package loop. Its clock is
// the engine's. Safe for concurrent use when the engine and Record are.
type Project struct {
	*engine.Engine
	loop.Local
	// Record records the use of what a context block shows, when the
	// call asks for it; nil records with Engine.RecordUse, at once. A
	// long-running server passes its batching queue.
	Record recall.Recorder
}

// New returns the service of project on eng, recording the use of
// context blocks with record (nil: at once).
func New(eng *engine.Engine, project string, record recall.Recorder) Project {
	eng = eng.WithProject(project)
	return Project{Engine: eng, Local: loop.Local{Svc: eng, Project: project}, Record: record}
}

// Named is the same service bound to project instead.
func (p Project) Named(project string) Project { return New(p.Engine, project, p.Record) }

// LoopContext implements loop.API: the block of the next iteration on a
// task (recall.LoopBlock).
func (p Project) LoopContext(ctx context.Context, req loop.ContextRequest) (*loop.Context, error) {
	req.Project = p.Local.Project
	return recall.LoopBlock(ctx, p.Engine, req)
}

// Lookup answers req (a file, an error, a command) on the engine of this
// process, as recall.AnswerLookup does, recording the use of what it
// shows with Record when req.Record asks; req.Project is the service's.
// When only the recording fails, the answer comes with that error.
func (p Project) Lookup(ctx context.Context, req recall.LookupRequest) (*recall.LookupAnswer, error) {
	req.Project = p.Local.Project
	rec := p.Record
	if rec == nil {
		rec = p.Engine.RecordUse
	}
	return recall.AnswerLookup(ctx, p.Engine, req, rec)
}

// Context builds the block of call, as recall.AnswerCall does: a call the
// configuration cannot serve is a *recall.InvalidError, and when only the
// recording of its use fails, the answer comes with that error.
func (p Project) Context(ctx context.Context, call recall.Call) (*recall.Answer, error) {
	rec := p.Record
	if rec == nil {
		rec = p.Engine.RecordUse
	}
	return recall.AnswerCall(ctx, p.Engine, call, rec)
}

// largeImport is how many memories written make an import fold the
// store's log into its main file when it is done.
const largeImport = 1000

// ImportStream imports what r holds, read as `cairn import` reads a file
// (package wire), in one transaction; the report's lines are r's. A large
// import leaves a large write-ahead log: it is checkpointed at once, so
// that the next processes open the database quickly (a server, which
// keeps the database open, folds its log as it goes).
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
