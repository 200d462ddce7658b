// Package mcpserver is cairn's Model Context Protocol server, built on the
// official Go SDK (github.com/modelcontextprotocol/go-sdk). One server
// serves one project: every tool, resource and prompt reads and writes
// that project's memories (and reads the global-scope ones, which every
// project sees by design); an id of another project's memory is "not
// found", exactly as an id that does not exist.
//
// Tools: remember, search, get, context, update, forget, the lookups
// recall_file, recall_error and recall_command, hat_transition (and memory, the
// file-style memory tool, when it is registered). Resources: one memory
// as JSON (cairn://memory/{id}) and one type's memories as JSON Lines
// (cairn://export/{type}, the format of `cairn export --jsonl-dir`). A
// prompt, recall, asks the agent to search cairn for a topic.
//
// Errors of the store or of the input become tool errors (results with
// IsError set and a sentence saying what to do), mapped from cairn's error
// codes in one table (see toolError), so that an agent can read and
// correct them; protocol errors are left for malformed requests.
//
// The transports live in cmd/cairn: `cairn mcp` (stdio) and `cairn serve`
// (streamable HTTP at /mcp).
package mcpserver

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
)

// Options configure a server.
type Options struct {
	// Service is the memory service, bound to Project (ids are looked up
	// in that project and among global-scope memories only); required.
	// local.Project (the engine of this process) and client.Project (a
	// server's client) implement it. Its clock is the server's clock; it
	// decides whether secrets are removed before anything is stored (the
	// CLI's engine always does), and records the use of what a context
	// block shows.
	Service Service
	// Project is the project every request is scoped to; required.
	Project string
	// Root is the project's folder, when the server runs in it: context
	// blocks mark the memories whose files there changed since (see
	// package filestale). "" skips the check.
	Root string
	// Version is reported to clients as the server's version; "" means
	// "(devel)".
	Version string
	// Logger receives internal errors (the client only sees that one
	// happened); nil discards them.
	Logger *slog.Logger
}

// Service is the part of cairn's surface (cairn.App) the server calls,
// bound to one project: memories and search, type checks, the project's
// settings (its loop policy), cleanup, the clock, context blocks and
// lookups built where the memories are, and the iterations of agent
// loops. local.Project and client.Project implement it. A call the
// settings cannot serve is EINVALID; a block or a lookup returned with
// an error means that only the recording of its use failed.
type Service interface {
	cairn.Service
	cairn.TypeService
	cairn.SettingsService
	cairn.LifecycleService
	cairn.Clock
	cairn.ContextBlockService
	cairn.LookupService
	cairn.LoopService
}

// server holds what the handlers share.
type server struct {
	eng     Service
	project string
	log     *slog.Logger
	root    string
}

// New returns an MCP server for opts.Project with cairn's tools,
// resources and prompt. It fails with EINVALID when the service is missing
// or the project is not a valid project name. The server may be connected
// to any number of sessions at once.
func New(opts Options) (*mcp.Server, error) {
	if opts.Service == nil {
		return nil, cairn.Errorf(cairn.EINVALID, "the MCP server needs a service")
	}
	if !cairn.ValidProject(opts.Project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid: give 1 to %d bytes of text without control characters", opts.Project, cairn.MaxNameBytes)
	}
	s := &server{eng: opts.Service, project: opts.Project, log: opts.Logger, root: opts.Root}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	version := opts.Version
	if version == "" {
		version = "(devel)"
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "cairn", Title: "cairn memory", Version: version}, &mcp.ServerOptions{
		Instructions: fmt.Sprintf("cairn is the memory of project %q across sessions: decisions and their reasons, "+
			"conventions, pitfalls, fixes, failed attempts. Call `context` with the task before starting work, "+
			"`search` then `get` to look something up, and `remember` whatever a later session should know "+
			"(one fact per memory, with its reason).", opts.Project),
		Logger:       s.log,
		Capabilities: &mcp.ServerCapabilities{}, // no logging capability: logs go to the operator, not the agent
	})
	s.addTools(srv)
	s.addLoopTools(srv)
	s.addLookupTools(srv)
	s.addHatTool(srv)
	s.addResources(srv)
	s.addPrompts(srv)
	registerMemoryTool(srv, s)
	return srv, nil
}

// errorKinds is the one table from cairn's error codes to what an agent
// reads in a tool error: what kind of failure it was and what to do.
var errorKinds = map[string]struct{ kind, advice string }{
	cairn.EINVALID:     {"invalid input", "correct the arguments and call again"},
	cairn.ENOTFOUND:    {"not found", "the search tool gives the ids of this project's memories"},
	cairn.ECONFLICT:    {"conflict", "read the memory again with get, then retry"},
	cairn.EUNAVAILABLE: {"unavailable", "the memory store is busy or unreachable; retry in a moment"},
	cairn.EINTERNAL:    {"internal error", "cairn failed unexpectedly; the server's log has the details"},
}

// toolErr is the error a tool handler returns: its text is all the agent
// sees (the SDK turns it into a result with IsError set).
type toolErr struct{ msg string }

func (e *toolErr) Error() string { return e.msg }

// toolError maps err to the tool error an agent reads, by its cairn error
// code; internal errors are logged and shown without their detail.
func (s *server) toolError(tool string, err error) error {
	code := cairn.ErrorCode(err)
	k, ok := errorKinds[code]
	if !ok {
		k = errorKinds[cairn.EINTERNAL]
	}
	msg := cairn.ErrorMessage(err)
	if code == cairn.EINTERNAL || !ok {
		s.log.Error("tool failed", "tool", tool, "project", s.project, "err", err)
		msg = "the request could not be completed"
	}
	msg = strings.Join(strings.Fields(msg), " ")
	return &toolErr{msg: fmt.Sprintf("%s: %s (%s)", k.kind, msg, k.advice)}
}

// notFound is the error for an id this project cannot see; the same
// whether the id does not exist or belongs to another project.
func (s *server) notFound(id string) error {
	return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %q in project %s", id, s.project)
}

// visible returns the memory with id (or a unique id prefix of at least 6
// characters) if this project may read it: its own memories, and the
// global-scope ones (the engine, bound to the project, applies the rule).
// Whether an id exists in another project is never revealed: such an id
// is not found, and another project's ids never make a prefix ambiguous.
func (s *server) visible(ctx context.Context, id string) (*cairn.Memory, error) {
	id = strings.TrimSpace(id)
	if id == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the id is empty; give a memory id such as mem-06gsdyrp00nxpfhj")
	}
	m, err := s.eng.FindMemoryByID(ctx, id)
	switch cairn.ErrorCode(err) {
	case "":
		return m, nil
	case cairn.ENOTFOUND:
		return nil, s.notFound(id)
	case cairn.EINVALID:
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no single memory of project %s has an id starting with %q; give the whole id", s.project, id)
	}
	return nil, err
}

// settings are the project's stored settings, else the built-in ones.
func (s *server) settings(ctx context.Context) (*cairn.Settings, error) {
	ps, err := s.eng.ProjectSettings(ctx, s.project)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return cairn.DefaultSettings(), nil
	}
	if err != nil {
		return nil, err
	}
	return ps.Settings, nil
}
