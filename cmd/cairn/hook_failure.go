package main

// The hook's answers at the point of a command: after a tool call fails
// (PostToolUseFailure, or PostToolUse with a failed shell result), the
// memory of the same error and what fixed it; before a shell command
// (PreToolUse on Bash), what is known about that command's failures. Both
// come from package lookup (SeenBefore, CommandFailures) and are printed
// as the event's additional context.

import (
	"context"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/lookup"
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
	return h.answerLookup(ctx, 2, func(r lookup.Reader, now time.Time, shown map[string]bool) (*lookup.Result, error) {
		return lookup.SeenBefore(ctx, r, lookup.Failure{Project: h.g.project, Output: out, Command: h.p.Command(), Now: now,
			Shown: shown, Paths: redact.Paths{Root: h.m.projectFolder(h.g), Home: h.m.Getenv("HOME")}, Exact: exact})
	})
}

// answerCommand prints what is known about the failures of the command
// a Bash tool call is about to run, but what the session was shown
// already.
func (h *hookRun) answerCommand(ctx context.Context, command string) error {
	return h.answerLookup(ctx, 1, func(r lookup.Reader, now time.Time, shown map[string]bool) (*lookup.Result, error) {
		return lookup.CommandFailures(ctx, r, lookup.PendingCommand{Project: h.g.project, Line: command, Now: now, Budget: actionBudget,
			Shown: shown})
	})
}

// answerLookup runs a lookup through the service, prints its block as the
// event's additional context and records the use of its memories. The
// memories the session was shown times times already are left out.
func (h *hookRun) answerLookup(ctx context.Context, times int, find func(r lookup.Reader, now time.Time, shown map[string]bool) (*lookup.Result, error)) error {
	var res *lookup.Result
	err := h.m.withService(ctx, h.g, recordDB, func(svc service) error {
		shown, err := shownTo(ctx, svc, h.g.project, h.p.SessionID, times)
		if err != nil {
			return err
		}
		if res, err = find(svc, svc.Now(), shown); err != nil || res.Text == "" {
			return err
		}
		return svc.RecordUse(ctx, res.IDs(), h.p.SessionID)
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

// maxShown bounds the uses of a session read to leave out what it was
// shown.
const maxShown = 500

// shownTo is the memories a session was shown at least times times
// (their use recorded with it), nil for a session without an id.
func shownTo(ctx context.Context, svc service, project, session string, times int) (map[string]bool, error) {
	if session == "" {
		return nil, nil
	}
	acts, _, err := svc.FindActivity(ctx, cairn.ActivityFilter{Project: project, SessionID: session,
		Actions: []string{cairn.ActionUsed}, Limit: maxShown, SkipTotal: true})
	if err != nil {
		return nil, err
	}
	n := map[string]int{}
	shown := map[string]bool{}
	for _, a := range acts {
		if n[a.MemoryID]++; n[a.MemoryID] >= times {
			shown[a.MemoryID] = true
		}
	}
	return shown, nil
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
