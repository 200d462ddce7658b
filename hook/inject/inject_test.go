package inject_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/hook"
	"github.com/cairn-dev/cairn/hook/inject"
)

// fakeService records what it is asked and answers fixed text.
type fakeService struct {
	calls   []cairn.ContextCall
	lookups []cairn.LookupRequest
	text    string
	err     error
}

func (f *fakeService) Context(_ context.Context, call cairn.ContextCall) (*cairn.ContextBlock, error) {
	f.calls = append(f.calls, call)
	return &cairn.ContextBlock{Text: f.text}, f.err
}

func (f *fakeService) Lookup(_ context.Context, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	f.lookups = append(f.lookups, req)
	return &cairn.LookupAnswer{Text: f.text}, f.err
}

func env(svc *fakeService, logged *[]error) *inject.Env {
	return &inject.Env{Agent: "claude", Project: "authsvc", Root: "/src/authsvc", CWDRoot: "/src/authsvc", Home: "/home/dev", Task: "7",
		Config:  func() (*config.Config, error) { return config.Default(), nil },
		Service: svc, Log: func(err error) { *logged = append(*logged, err) }}
}

// Each event asks the service for its own kind of block, in the hook's
// project and session, and renders the answer as Claude Code reads it.
func TestAnswerAsksForEachEventsBlock(t *testing.T) {
	t.Parallel()
	var logged []error
	for _, tc := range []struct {
		event   hook.Event
		payload hook.Payload
		check   func(*fakeService) string
	}{
		{hook.UserPromptSubmit, hook.Payload{SessionID: "s", Prompt: "why is the auth test flaky"}, func(f *fakeService) string {
			if len(f.calls) != 1 || f.calls[0].Profile != cairn.ProfilePrompt || f.calls[0].Task != "7" || f.calls[0].Session != "s" ||
				f.calls[0].Project != "authsvc" || !f.calls[0].Record || f.calls[0].MaxJSONChars != hook.MaxContext {
				return "the prompt's call"
			}
			return ""
		}},
		{hook.PreToolUse, hook.Payload{SessionID: "s", ToolName: "Bash", ToolInput: []byte(`{"command":"go test ./..."}`)}, func(f *fakeService) string {
			if len(f.lookups) != 1 || f.lookups[0].Profile != cairn.ProfileCommand || f.lookups[0].Command != "go test ./..." || f.lookups[0].ShownTimes != 1 {
				return "the command's lookup"
			}
			return ""
		}},
		{hook.PreToolUse, hook.Payload{SessionID: "s", CWD: "/src/authsvc/internal", ToolName: "Edit", ToolInput: []byte(`{"file_path":"/src/authsvc/internal/auth.go"}`)}, func(f *fakeService) string {
			if len(f.calls) != 1 || f.calls[0].Profile != cairn.ProfileEdit || len(f.calls[0].Files) != 1 || f.calls[0].Files[0] != "internal/auth.go" {
				return "the edit's call"
			}
			return ""
		}},
		{hook.PostToolUseFailure, hook.Payload{SessionID: "s", ToolName: "Bash", ToolInput: []byte(`{"command":"make"}`), Error: "Exit code 2\n/src/authsvc/x.go:3: boom in /home/dev/y"}, func(f *fakeService) string {
			if len(f.lookups) != 1 || f.lookups[0].Profile != cairn.ProfileFailure || f.lookups[0].ShownTimes != 2 ||
				strings.Contains(f.lookups[0].Subject, "/src/authsvc") || strings.Contains(f.lookups[0].Subject, "/home/dev") {
				return "the failure's lookup"
			}
			return ""
		}},
		{hook.SubagentStart, hook.Payload{SessionID: "s", AgentType: "reviewer"}, func(f *fakeService) string {
			if len(f.calls) != 1 || f.calls[0].Profile != cairn.ProfileSubagent || f.calls[0].Agent != "reviewer" {
				return "the subagent's call"
			}
			return ""
		}},
	} {
		f := &fakeService{text: "<cairn-context>known</cairn-context>"}
		out, err := inject.Answer(t.Context(), tc.event, &tc.payload, env(f, &logged))
		if err != nil || !strings.HasPrefix(string(out), `{"hookSpecificOutput":{"hookEventName":"`+string(tc.event)+`"`) {
			t.Errorf("%s: %q, %v", tc.event, out, err)
		}
		if what := tc.check(f); what != "" {
			t.Errorf("%s: %s is wrong: %+v %+v", tc.event, what, f.calls, f.lookups)
		}
	}
	if len(logged) != 0 {
		t.Errorf("logged %v", logged)
	}
}

// Nothing to ask (a blank prompt, a tool that names no file, a subagent
// without a type, an event that captures) asks nothing and answers
// nothing; an empty block answers nothing; a failed recording comes with
// the block.
func TestAnswerIsEmptyWhenThereIsNothingToSay(t *testing.T) {
	t.Parallel()
	var logged []error
	f := &fakeService{text: "block"}
	for _, tc := range []struct {
		event hook.Event
		p     hook.Payload
	}{
		{hook.UserPromptSubmit, hook.Payload{Prompt: "  "}},
		{hook.PreToolUse, hook.Payload{ToolName: "Read", ToolInput: []byte(`{}`)}},
		{hook.SubagentStart, hook.Payload{}},
		{hook.Stop, hook.Payload{}},
		{hook.PostToolUseFailure, hook.Payload{ToolName: "Bash", IsInterrupt: true}},
	} {
		if out, err := inject.Answer(t.Context(), tc.event, &tc.p, env(f, &logged)); out != nil || err != nil {
			t.Errorf("%s %+v: %q, %v", tc.event, tc.p, out, err)
		}
	}
	if len(f.calls)+len(f.lookups) != 0 {
		t.Errorf("asked %v %v", f.calls, f.lookups)
	}
	empty := &fakeService{text: ""}
	if out, err := inject.Answer(t.Context(), hook.UserPromptSubmit, &hook.Payload{Prompt: "x"}, env(empty, &logged)); out != nil || err != nil {
		t.Errorf("empty block: %q, %v", out, err)
	}
	failing := &fakeService{text: "block", err: errors.New("recording failed")}
	if out, err := inject.Answer(t.Context(), hook.UserPromptSubmit, &hook.Payload{Prompt: "x"}, env(failing, &logged)); out == nil || err == nil {
		t.Errorf("a failed recording: %q, %v", out, err)
	}
}
