package hook

// Bad inputs tried: empty and blank input, a JSON array, a number, broken
// JSON, two objects, a field of the wrong type, unknown event names, text
// whose escaped form is longer than MaxContext though its characters fit.

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseEventTakesKebabAndCamelCase(t *testing.T) {
	for _, ev := range Events {
		for _, name := range []string{string(ev), ev.Kebab(), strings.ToUpper(ev.Kebab()), strings.ReplaceAll(ev.Kebab(), "-", "_")} {
			if got, ok := ParseEvent(name); !ok || got != ev {
				t.Errorf("ParseEvent(%q) = %q, %v; want %q", name, got, ok, ev)
			}
		}
	}
	if UserPromptSubmit.Kebab() != "user-prompt-submit" || SessionStart.Kebab() != "session-start" {
		t.Errorf("kebab names: %s %s", UserPromptSubmit.Kebab(), SessionStart.Kebab())
	}
	for _, bad := range []string{"", "-", "permission-request", "Notification", "session"} {
		if _, ok := ParseEvent(bad); ok {
			t.Errorf("ParseEvent(%q) accepted", bad)
		}
	}
}

// ParseEvent answers as its definition does: the name with its dashes
// and underscores left out, lowered, is an event's name lowered.
func TestParseEventIsItsDefinition(t *testing.T) {
	def := func(name string) (Event, bool) {
		norm := strings.ToLower(strings.NewReplacer("-", "", "_", "").Replace(name))
		for _, ev := range Events {
			if strings.ToLower(string(ev)) == norm && norm != "" {
				return ev, true
			}
		}
		return "", false
	}
	names := []string{"", "-", "_-_", "Stop", "stop-", "-s-t-o-p-", "S_T_O_P", "sto", "stopp", "StopX",
		"Sess\u0130on-Start", "sess\u0131on-start", "\u212Aeep", "pre-tool-use\xff",
		"USERPROMPTSUBMIT", "user prompt submit", "user-prompt-submit ", "subagent-start", "Subagent__Stop", "session-end"}
	for _, ev := range Events {
		names = append(names, string(ev)+"s", string(ev)[1:], strings.ToUpper(ev.Kebab()), "-"+ev.Kebab()+"_")
	}
	for _, name := range names {
		wantEv, wantOK := def(name)
		if got, ok := ParseEvent(name); got != wantEv || ok != wantOK {
			t.Errorf("ParseEvent(%q) = %q, %v; its definition says %q, %v", name, got, ok, wantEv, wantOK)
		}
	}
	if testing.AllocsPerRun(10, func() { ParseEvent("user-prompt-submit") }) != 0 {
		t.Error("ParseEvent allocates")
	}
}

func TestParseRejectsWhatIsNotOnePayload(t *testing.T) {
	for _, in := range []string{"", " \n", "[]", "42", `{"session_id":`, `{} {}`, `{"session_id": 5}`, `{"stop_hook_active": "yes"}`} {
		if _, err := Parse([]byte(in)); err == nil {
			t.Errorf("Parse(%q) accepted", in)
		}
	}
	p, err := Parse([]byte(`{"session_id":"s","cwd":"/w","hook_event_name":"PostToolUse","tool_name":"Bash","tool_input":{"command":"go test ./..."},"tool_response":{"stdout":"FAIL x","stderr":"","interrupted":false,"isImage":false},"future_field":[1]}`))
	if err != nil {
		t.Fatal(err)
	}
	if ev, ok := p.Event(); !ok || ev != PostToolUse || p.Command() != "go test ./..." || p.SessionID != "s" || p.CWD != "/w" {
		t.Errorf("payload %+v", p)
	}
	if out, failed := p.ToolResult(); out != "FAIL x" || failed {
		t.Errorf("ToolResult = %q, %v", out, failed)
	}
	p.ToolResponse = json.RawMessage(`{"stdout":"","stderr":"","interrupted":true}`)
	if _, failed := p.ToolResult(); !failed {
		t.Errorf("an interrupted command is a failure")
	}
	p.ToolResponse = json.RawMessage(`"plain output"`)
	if out, _ := p.ToolResult(); out != "plain output" {
		t.Errorf("string response = %q", out)
	}
	p.ToolName = "Write"
	if p.Command() != "" {
		t.Errorf("a Write has no command")
	}
}

func TestContextIsClaudeCodesJSONWithinTheCap(t *testing.T) {
	if out, err := Context(SessionStart, " \n"); out != nil || err != nil {
		t.Errorf("empty text gives %q, %v; want nothing", out, err)
	}
	out, err := Context(UserPromptSubmit, `<cairn-context project="p">a & b</cairn-context>`)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"<cairn-context project=\"p\">a & b</cairn-context>"}}` + "\n"
	if string(out) != want {
		t.Errorf("got  %s\nwant %s", out, want)
	}
	fits := strings.Repeat("é", MaxContext)
	if _, err := Context(SessionStart, fits); err != nil {
		t.Errorf("%d plain characters should fit: %v", MaxContext, err)
	}
	quotes := strings.Repeat(`"`, MaxContext/2+1) // escaped, one more than fits
	if EscapedLen(quotes) != MaxContext+2 {
		t.Errorf("EscapedLen = %d", EscapedLen(quotes))
	}
	if _, err := Context(SessionStart, quotes); err != ErrTooLong {
		t.Errorf("escaped text over the cap: err = %v, want ErrTooLong", err)
	}
}

// The cap is counted as Claude Code counts: in UTF-16 units, so an emoji
// counts two; escapes count as the characters they are written with.
func TestEscapedLenCountsUTF16Units(t *testing.T) {
	for s, want := range map[string]int{
		"abc":   3,
		"é":     1,
		"🙂":     2,
		"a\nb":  4, // a \ n b
		`"q"`:   5, // \" q \"
		"🙂\t漢字": 6,
	} {
		if got := EscapedLen(s); got != want {
			t.Errorf("EscapedLen(%q) = %d, want %d", s, got, want)
		}
	}
}
