package server

// The MCP server over a process's standard input and output (`cairn
// mcp`), for agents that start their MCP servers as processes (Claude
// Code, Codex, Cursor …).

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/jobs"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
)

// StdioConfig configures NewStdio.
type StdioConfig struct {
	// MCP are the MCP server's options. With Engine set, MCP.Service is
	// built here and must be left nil; without, it is required (the
	// client of the server that answers for the database).
	MCP mcpserver.Options
	// Engine, when not nil, answers the tools in this process, bound to
	// none (the session's project is MCP.Project): the session then
	// records the use of what its blocks show in batches, written by a
	// goroutine of its own as a server's are (jobs.UseWriter), and
	// written out when Run returns or Close is called.
	Engine *engine.Engine
	// Wrap, when not nil, is applied to the surface built on Engine
	// before the MCP server uses it (a command that writes its settings
	// files to the database as they change).
	Wrap func(cairn.App) mcpserver.Service
	// Uses tunes the use writer of Engine; its Log defaults to Log.
	Uses jobs.UseWriterConfig
	// In and Out carry the protocol, one JSON-RPC message a line: Out
	// gets nothing else.
	In  io.Reader
	Out io.Writer
	// Log gets a line for each input line refused and each failed write
	// of uses; nil discards them.
	Log io.Writer
}

// Stdio is an MCP server over a pair of streams, with the jobs it owns.
type Stdio struct {
	srv   *mcp.Server
	uses  *jobs.UseWriter
	in    io.Reader
	out   io.Writer
	log   io.Writer
	close sync.Once
}

// NewStdio returns the MCP server of cfg over cfg.In and cfg.Out, ready
// to Run; its use writer, with cfg.Engine, runs from now on. EINVALID as
// mcpserver.New fails, or for a service given along with an engine.
func NewStdio(cfg StdioConfig) (*Stdio, error) {
	if cfg.Log == nil {
		cfg.Log = io.Discard
	}
	s := &Stdio{in: cfg.In, out: cfg.Out, log: cfg.Log}
	if cfg.Engine != nil {
		if cfg.MCP.Service != nil {
			return nil, cairn.Errorf(cairn.EINVALID, "give the MCP server an engine or a service, not both")
		}
		if !cairn.ValidProject(cfg.MCP.Project) {
			// mcpserver.New says so, before a writer is started.
			_, err := mcpserver.New(cfg.MCP)
			return nil, err
		}
		if cfg.Uses.Log == nil {
			cfg.Uses.Log = cfg.Log
		}
		s.uses = jobs.NewUseWriter(cfg.Engine, &cfg.Uses)
		var app cairn.App = local.New(cfg.Engine, cfg.MCP.Project, &local.Options{Record: s.uses.Record})
		cfg.MCP.Service = app
		if cfg.Wrap != nil {
			cfg.MCP.Service = cfg.Wrap(app)
		}
	}
	srv, err := mcpserver.New(cfg.MCP)
	if err != nil {
		s.Close()
		return nil, err
	}
	s.srv = srv
	return s, nil
}

// Server is the MCP server, to connect to another transport as well
// (a test's in-memory one).
func (s *Stdio) Server() *mcp.Server { return s.srv }

// Run serves one MCP session over the streams until the client closes
// its input or ctx ends (nil then, as when the client goes away). A line
// that is not JSON, or a JSON-RPC batch, is answered with its error and
// the session goes on; one the transport cannot take ends the session
// with an EINVALID error. Run closes the server's jobs (Close) before it
// returns.
func (s *Stdio) Run(ctx context.Context) error {
	defer s.Close()
	out := &lockedWriter{w: writeCloser(s.out)}
	t := &mcp.IOTransport{Reader: newMCPLines(readCloser(s.in), out, s.log), Writer: out, MaxLineLength: maxMCPLine + 1}
	err := s.srv.Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // stopped, or the client went away
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return cairn.WrapError(cairn.EINVALID, err, "the MCP client sent a line that is not JSON; the session ended")
	}
	return err
}

// Close writes the uses gathered and stops the use writer: call it when
// the server is never Run. It may be called more than once; the engine
// is the caller's to close, after.
func (s *Stdio) Close() {
	s.close.Do(func() {
		if s.uses != nil {
			s.uses.Close()
		}
	})
}

// readCloser and writeCloser let the transport use a process's streams;
// closing them closes the underlying file only when there is one.
func readCloser(r io.Reader) io.ReadCloser {
	if rc, ok := r.(io.ReadCloser); ok {
		return rc
	}
	return io.NopCloser(r)
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func writeCloser(w io.Writer) io.WriteCloser {
	if wc, ok := w.(io.WriteCloser); ok {
		return wc
	}
	return nopWriteCloser{w}
}
