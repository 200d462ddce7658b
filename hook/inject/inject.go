// Package inject decides what a hook that adds context answers: the block
// of SessionStart, UserPromptSubmit, PreToolUse, PostToolUseFailure,
// SubagentStart (and PostToolUse after a failed command), rendered as
// Claude Code reads it (package hook). `cairn hook claude EVENT` and the
// server's http hook endpoint (package server) both answer through
// Answer, so that a payload gets the same bytes whichever kind of hook
// Claude Code runs.
//
// Where the answer comes from is the caller's (Env.Service: the engine
// of this process, or the client of a server); so is how the project,
// its folder and its configuration were found.
package inject

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/redact"
	"github.com/cairn-dev/cairn/sessionstate"
)

// Service answers the blocks and lookups, where the memories are: the
// part of cairn.App a hook calls. A read of a database that does not
// exist yet answers (nil, nil).
type Service interface {
	cairn.ContextBlockService
	cairn.LookupService
}

// Env is what a hook call knows besides its payload.
type Env struct {
	// Agent is "claude" or "codex": whose hook this is.
	Agent string
	// Project is the project the blocks are of: an explicit one, else
	// the name of Root's folder.
	Project string
	// Root is the project's folder when it is known (the payload's cwd's
	// git top-level folder, when that is the project's), else "": what
	// memories refer to is checked against it, and paths in an error are
	// told relative to it.
	Root string
	// CWDRoot is the git top-level folder of the payload's cwd, whichever
	// project that is: a file about to be edited is named relative to it.
	CWDRoot string
	// Home is the user's home folder, set aside in error text.
	Home string
	// Hat is the session's agent role (--hat); Task an agent loop's task
	// (CAIRN_TASK), whose attempts come with a prompt's memories.
	Hat, Task string
	// State is the session state file (package sessionstate), where a
	// prompt's keyword overrides wait for the next session's start; ""
	// keeps none.
	State string
	// DataDir is the folder of the conversation logs, listed at a session's
	// start when the configuration asks for the index.
	DataDir string
	// Config returns the project's settings (a prompt's keyword
	// overrides, the memory index); called once, only when a block is
	// built. The block itself is built with the settings of the process
	// that answers it (Service).
	Config func() (*cairn.Settings, error)
	// Service answers.
	Service Service
	// Log is told what went wrong without failing the call (a state file
	// that cannot be written, a ranking that fell back); nil: nothing.
	Log func(error)
}

func (env *Env) log(err error) {
	if env.Log != nil && err != nil {
		env.Log(err)
	}
}

// Answers reports whether Answer may print something for event: the
// events that add context, and PostToolUse (after a failed command).
func Answers(e hook.Event) bool {
	return hook.Injects(e) || e == hook.PostToolUse
}

// Answer returns what the hook prints for event and payload p: one line
// of JSON (hook.Context) or nothing (nil). An error is to be logged, not
// shown: the answer may still be set (the block was built and only the
// recording of its use failed). Events that capture answer nothing here.
func Answer(ctx context.Context, event hook.Event, p *hook.Payload, env *Env) ([]byte, error) {
	switch event {
	case hook.SessionStart:
		return env.inject(ctx, event, p, cairn.ContextRequest{Profile: cairn.ProfileSessionStart})
	case hook.UserPromptSubmit:
		if strings.TrimSpace(p.Prompt) == "" {
			return nil, nil
		}
		return env.inject(ctx, event, p, cairn.ContextRequest{Profile: cairn.ProfilePrompt, Prompt: p.Prompt, Task: strings.TrimSpace(env.Task)})
	case hook.PreToolUse:
		if cmd := strings.TrimSpace(p.Command()); cmd != "" {
			// What is known about the failures of the command about to
			// run, but what the session was shown already.
			return env.lookup(ctx, event, p, cairn.LookupRequest{Profile: cairn.ProfileCommand, Command: cmd, ShownTimes: 1})
		}
		req, ok := env.actionRequest(p)
		if !ok {
			return nil, nil
		}
		return env.inject(ctx, event, p, req)
	case hook.PostToolUseFailure:
		return env.failure(ctx, event, p)
	case hook.PostToolUse:
		if _, failed := p.Failure(); (failed || env.Agent == "codex") && p.ToolName == "Bash" {
			// Where a failed command fires PostToolUse (Codex, whose
			// payload does not say whether it failed).
			return env.failure(ctx, event, p)
		}
		return nil, nil
	case hook.SubagentStart:
		if strings.TrimSpace(p.AgentType) == "" {
			return nil, nil
		}
		return env.inject(ctx, event, p, cairn.ContextRequest{Profile: cairn.ProfileSubagent, Prompt: p.AgentType, Agent: p.AgentType})
	}
	return nil, nil
}

// actionRequest is the block for a PreToolUse payload of an Edit,
// MultiEdit, Write or NotebookEdit: the edit profile for the file it is
// about to change (its path relative to the cwd's project folder); ok is
// false for other tools.
func (env *Env) actionRequest(p *hook.Payload) (cairn.ContextRequest, bool) {
	f := p.FilePath()
	if f == "" {
		return cairn.ContextRequest{}, false
	}
	if filepath.IsAbs(f) && p.CWD != "" && env.CWDRoot != "" {
		if rel, err := filepath.Rel(env.CWDRoot, f); err == nil && !strings.HasPrefix(rel, "..") {
			f = rel
		}
	}
	return cairn.ContextRequest{Profile: cairn.ProfileEdit, Files: []string{filepath.ToSlash(f)}}, true
}

// inject builds the block of req (its project, agent, hat and session are
// the hook's) as the event's additional context, and records the use of
// the memories in it.
func (env *Env) inject(ctx context.Context, event hook.Event, p *hook.Payload, req cairn.ContextRequest) ([]byte, error) {
	c, err := env.Config()
	if err != nil {
		return nil, err
	}
	req.Project, req.Hat, req.Session, req.Root = env.Project, env.Hat, p.SessionID, env.Root
	if event == hook.SessionStart && c.Context.Index && env.DataDir != "" {
		req.Conversations = conversation.MonthsNewestFirst(env.DataDir, env.Project)
	}
	if req.Agent == "" {
		req.Agent = env.Agent
	}
	if c.Context.MaxChars > hook.MaxContext {
		req.MaxChars, req.MaxCharsSet = hook.MaxContext, true
	}
	switch event {
	case hook.UserPromptSubmit:
		env.keepKeywords(c, p, req.Prompt) // for the next session's start (seed 004)
	case hook.SessionStart:
		req.Keywords = env.takeKept()
	}
	// Claude Code counts the escaped text against its cap.
	call := cairn.ContextCall{ContextRequest: req, Record: true, MaxJSONChars: hook.MaxContext}
	a, err := env.Service.Context(ctx, call)
	if a == nil {
		return nil, err
	}
	if r := a.Retrieval; r.Fallback != "" {
		env.log(fmt.Errorf("ranked lexically instead of %s: %s", r.Asked, r.Fallback))
	}
	out, oerr := hook.Context(event, a.Text)
	if oerr != nil {
		return nil, errors.Join(err, oerr)
	}
	return out, err // err: the use of the block's memories not recorded
}

// failure answers a failed tool call with the memory of the same error,
// when one holds it. The moment of the failure is when the fix matters
// most: a memory the session saw before (in a longer block, perhaps
// shortened) is shown again, but not a third time, so that a loop of the
// same failure does not repeat it.
func (env *Env) failure(ctx context.Context, event hook.Event, p *hook.Payload) ([]byte, error) {
	out, failed := p.Failure()
	exact := false
	if !failed && env.Agent == "codex" {
		// Codex's PostToolUse gives a shell command's output without its
		// exit status: an output that names an error the project met is
		// answered, on the error's exact line only.
		out, _ = p.ToolResult()
		failed, exact = strings.TrimSpace(out) != "", true
	}
	if !failed {
		return nil, nil
	}
	paths := redact.Paths{Root: env.Root, Home: env.Home}
	return env.lookup(ctx, event, p, cairn.LookupRequest{Profile: cairn.ProfileFailure, Subject: paths.Text(out), Command: p.Command(),
		ShownTimes: 2, Exact: exact})
}

// lookup runs req in the hook's session, recording the use of its
// memories, and renders its block as the event's additional context. The
// memories the session was shown req.ShownTimes times already are left
// out.
func (env *Env) lookup(ctx context.Context, event hook.Event, p *hook.Payload, req cairn.LookupRequest) ([]byte, error) {
	req.Project, req.Session, req.Record = env.Project, p.SessionID, true
	res, err := env.Service.Lookup(ctx, req)
	if res == nil || res.Text == "" {
		return nil, err
	}
	out, oerr := hook.Context(event, res.Text)
	if oerr != nil {
		return nil, oerr
	}
	return out, err // err: the use of the block's memories not recorded
}

// keepKeywords saves the keyword overrides the prompt matched (seed 004:
// "full history" → a dynamic count of 10) for the next session's start.
// A state that cannot be written is logged, not an error of the prompt.
func (env *Env) keepKeywords(c *cairn.Settings, p *hook.Payload, prompt string) {
	if env.State == "" {
		return
	}
	phrases := c.MatchKeywords(prompt) // no copy of the configuration on every prompt
	if len(phrases) == 0 {
		return
	}
	env.log(sessionstate.Keep(env.State, env.Project, sessionstate.Override{Keywords: phrases, Session: p.SessionID, At: time.Now().UTC()}))
}

// takeKept returns the keyword phrases a prompt of an earlier session
// kept, for the block to apply (cairn.ContextRequest.Keywords), and forgets
// them; nil when none were kept.
func (env *Env) takeKept() []string {
	if env.State == "" {
		return nil
	}
	o, ok, err := sessionstate.Take(env.State, env.Project)
	env.log(err)
	if !ok || len(o.Keywords) == 0 {
		return nil
	}
	return o.Keywords
}
