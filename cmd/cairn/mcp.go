package main

// `cairn mcp`: the MCP server (package mcpserver) over standard input and
// output, for agents that start their MCP servers as processes (Claude
// Code, Codex, Cursor …). Standard output carries nothing but the
// protocol; everything else goes to standard error.

import (
	"context"
	"fmt"
	"log/slog"
	"runtime/debug"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/server"
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
	stdio, label, done, err := m.mcpStdio(ctx, g, *cacheMB)
	if err != nil {
		return err
	}
	defer done()
	fmt.Fprintf(m.Stderr, "cairn: MCP server for project %s (%s) on standard input and output\n", g.project, label)
	return stdio.Run(ctx)
}

// mcpStdio is the MCP server `cairn mcp` runs on its standard streams
// (server.NewStdio): over the client of the server that answers for the
// database of g (the rule of every command, see withService), else over
// the database, opened with a search cache of cacheMB MiB. A server is
// asked once, when the session starts: the socket's server that does not
// answer then leaves the database to this process, and one that stops
// answering later makes the tools answer "unavailable". label names what
// answers, for the start-up line; done closes the database, once the
// server has stopped.
func (m *Main) mcpStdio(ctx context.Context, g *globals, cacheMB int64) (stdio *server.Stdio, label string, done func(), err error) {
	p, named, err := m.server(g)
	if err != nil {
		return nil, "", nil, err
	}
	cfg := server.StdioConfig{MCP: m.mcpOptions(g.project, true), In: m.Stdin, Out: m.Stdout, Log: m.Stderr}
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
			cfg.MCP.Service = m.syncingService(g, p)
			stdio, err := server.NewStdio(cfg)
			return stdio, fmt.Sprintf("database %s, answered by %s", g.label(), by), func() {}, err
		}
	}
	s, err := m.openWith(ctx, g, false, func(e *engineSetup) { e.cacheBytes = cacheMB << 20 })
	if err != nil {
		return nil, "", nil, err
	}
	cfg.Engine = s.all
	cfg.Wrap = func(app cairn.App) mcpserver.Service { return m.syncingService(g, app) }
	stdio, err = server.NewStdio(cfg)
	if err != nil {
		s.Close()
		return nil, "", nil, err
	}
	return stdio, "database " + g.label(), func() { stdio.Close(); s.Close() }, nil
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

// mcpOptions are the options of the MCP server of project (its service
// left to set); its context blocks and loop policy follow the project's
// stored settings. ownDir says whether the working directory is the
// project's: its memories are then checked against the files there.
func (m *Main) mcpOptions(project string, ownDir bool) mcpserver.Options {
	root := ""
	if ownDir {
		if wd, err := m.Getwd(); err == nil && wd != "" {
			root = projectRoot(wd)
		}
	}
	return mcpserver.Options{
		Project: project,
		Root:    root,
		Version: buildVersion(),
		Logger:  slog.New(slog.NewTextHandler(m.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
	}
}

// buildVersion is what `cairn version` prints after the name.
func buildVersion() string {
	bi, _ := debug.ReadBuildInfo()
	return versionOf(bi)
}
