package main

// The hook's answers at the point of a command: after a tool call fails
// (PostToolUseFailure, or PostToolUse with a failed shell result), the
// memory of the same error and what fixed it; before a shell command
// (PreToolUse on Bash), what is known about that command's failures. Both
// are lookups of package recall (the failure and command profiles),
// answered where the memories are, and printed as the event's additional
// context.

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/redact"
)

// answerFailure prints the memory of the error a failed tool call met,
// when one holds it. The moment of the failure is when the fix matters
// most: a memory the session saw before (in a longer block, perhaps
// shortened) is shown again, but not a third time, so that a loop of the
// same failure does not repeat it.
func (h *hookRun) answerFailure(ctx context.Context) error {
	out, failed := h.p.Failure()
	exact := false
	if !failed && h.agent == "codex" {
		// Codex's PostToolUse gives a shell command's output without its
		// exit status: an output that names an error the project met is
		// answered, on the error's exact line only.
		out, _ = h.p.ToolResult()
		failed, exact = strings.TrimSpace(out) != "", true
	}
	if !failed {
		return nil
	}
	paths := redact.Paths{Root: h.m.projectFolder(h.g), Home: h.m.Getenv("HOME")}
	return h.answerLookup(ctx, recall.LookupRequest{Profile: recall.ProfileFailure, Subject: paths.Text(out), Command: h.p.Command(),
		ShownTimes: 2, Exact: exact})
}

// answerCommand prints what is known about the failures of the command
// a Bash tool call is about to run, but what the session was shown
// already.
func (h *hookRun) answerCommand(ctx context.Context, command string) error {
	return h.answerLookup(ctx, recall.LookupRequest{Profile: recall.ProfileCommand, Command: command, ShownTimes: 1})
}

// answerLookup runs req, in the hook's session, through the service (a
// server's, where the memories are, when one answers), which records the
// use of its memories, and prints its block as the event's additional
// context.
// The memories the session was shown req.ShownTimes times already are
// left out.
func (h *hookRun) answerLookup(ctx context.Context, req recall.LookupRequest) error {
	var res *recall.LookupAnswer
	req.Project, req.Session, req.Record = h.g.project, h.p.SessionID, true
	err := h.m.withService(ctx, h.g, recordDB, func(svc service) error {
		var err error
		res, err = svc.Lookup(ctx, req)
		return err
	})
	if errIsNoDatabase(err) {
		return nil // nothing remembered yet
	}
	if res == nil || res.Text == "" {
		return err
	}
	out, oerr := hook.Context(h.event, res.Text)
	if oerr != nil || out == nil {
		return oerr
	}
	if _, werr := h.m.Stdout.Write(out); werr != nil {
		return werr
	}
	return err // the use of the block's memories not recorded
}

// askAtStop prints the Stop hook's request to the agent for its own
// account of the session (hook.AskReason), when the capture found one is
// due.
func (h *hookRun) askAtStop(why string) error {
	if why == "" {
		return nil
	}
	_, err := h.m.Stdout.Write(hook.Block(hook.AskReason(why)))
	return err
}
