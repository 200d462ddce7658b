package main

// `cairn mcp`: the MCP server (package mcpserver) over standard input and
// output, for agents that start their MCP servers as processes (Claude
// Code, Codex, Cursor …). Standard output carries nothing but the
// protocol; everything else goes to standard error.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"runtime/debug"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/jobs"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
)

func runMCP(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "mcp", "[flags]")
	cacheMB := fs.Int64("cache-mb", 64, "keep up to this many `MiB` of the search index in memory")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("mcp: unexpected argument %q (the project comes from --project or the working directory)", pos[0])
	}
	svc, label, done, err := m.mcpService(ctx, g, *cacheMB)
	if err != nil {
		return err
	}
	defer done()
	srv, err := newMCPServer(m, svc, g.project, true)
	if err != nil {
		return err
	}
	fmt.Fprintf(m.Stderr, "cairn: MCP server for project %s (%s) on standard input and output\n", g.project, label)
	out := &lockedWriter{w: writeCloser(m.Stdout)}
	t := &mcp.IOTransport{Reader: newMCPLines(readCloser(m.Stdin), out, m.Stderr), Writer: out, MaxLineLength: maxMCPLine + 1}
	err = srv.Run(ctx, t)
	if ctx.Err() != nil || errors.Is(err, io.EOF) || errors.Is(err, mcp.ErrConnectionClosed) {
		return nil // stopped, or the client went away
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return cairn.WrapError(cairn.EINVALID, err, "the MCP client sent a line that is not JSON; the session ended")
	}
	return err
}

// mcpService is the service `cairn mcp` serves: the client of the server
// that answers for the database of g (the rule of every command, see
// withService), else the engine over the database, opened with a search
// cache of cacheMB MiB and recording uses in batches as a server does.
// A server is asked once, when the session starts: the socket's server
// that does not answer then leaves the database to this process, and one
// that stops answering later makes the tools answer "unavailable". label
// names what answers, for the start-up line; done releases it.
func (m *Main) mcpService(ctx context.Context, g *globals, cacheMB int64) (svc mcpserver.Service, label string, done func(), err error) {
	p, named, err := m.server(g)
	if err != nil {
		return nil, "", nil, err
	}
	if p != nil {
		// A request that every server answers, whatever its version: the
		// socket's server may be gone, or serve another file now.
		_, err := p.NearType(ctx, g.project, "note")
		if named || !client.IsUnavailable(err) {
			if err != nil {
				return nil, "", nil, err
			}
			m.served = true
			by := "the cairn serve of its socket"
			if named {
				by = "the server " + g.server
			}
			return m.syncingService(g, p), fmt.Sprintf("database %s, answered by %s", g.label(), by), func() {}, nil
		}
	}
	// A long-lived engine: a search cache, and use records written in
	// batches by one goroutine, as in serve.
	s, err := m.openWith(ctx, g, false, func(e *engineSetup) { e.cacheBytes = cacheMB << 20 })
	if err != nil {
		return nil, "", nil, err
	}
	s.uses = jobs.NewUseWriter(s.all, &jobs.UseWriterConfig{Log: m.Stderr})
	return m.syncingService(g, local.New(s.all, g.project, &local.Options{Record: s.recordUse})), "database " + g.label(), func() { s.uses.Close(); s.Close() }, nil
}

// syncingService is svc, which writes the project's settings to the
// database before each write and each context block when the files
// changed (syncSettings), so that an edit of cairn.toml takes effect in a
// long MCP session without a restart.
func (m *Main) syncingService(g *globals, svc cairn.App) mcpserver.Service {
	return settingsSyncer{App: svc, m: m, g: g}
}

type settingsSyncer struct {
	cairn.App
	m *Main
	g *globals
}

func (s settingsSyncer) AddMemory(ctx context.Context, mem *cairn.Memory) (*cairn.WriteResult, error) {
	s.m.syncSettings(ctx, s.g, s.App)
	return s.App.AddMemory(ctx, mem)
}

func (s settingsSyncer) Context(ctx context.Context, call cairn.ContextCall) (*cairn.ContextBlock, error) {
	s.m.syncSettings(ctx, s.g, s.App)
	return s.App.Context(ctx, call)
}

// newMCPServer returns the MCP server of project over svc (bound to
// project); its context blocks and loop policy follow the project's
// stored settings. ownDir says whether the working directory is the
// project's: its memories are then checked against the files there.
func newMCPServer(m *Main, svc mcpserver.Service, project string, ownDir bool) (*mcp.Server, error) {
	root := ""
	if ownDir {
		if wd, err := m.Getwd(); err == nil && wd != "" {
			root = projectRoot(wd)
		}
	}
	return mcpserver.New(mcpserver.Options{
		Service: svc,
		Project: project,
		Root:    root,
		Version: buildVersion(),
		Logger:  slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	})
}

// buildVersion is what `cairn version` prints after the name.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}

// readCloser and writeCloser let the transport use the command's streams;
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
