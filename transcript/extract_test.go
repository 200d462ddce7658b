package transcript

import (
	"strings"
	"testing"
)

// Pending is empty when nothing was seen, carries an open failure and a
// command still waiting for its result to the next run, and
// RestorePending refuses a text it cannot read without changing the
// extractor. A state of the earlier format ({"failing": …}) restores its
// failures.
func TestPendingStateRoundTripAndBadText(t *testing.T) {
	t.Parallel()
	x := NewExtractor("p")
	if p := x.Pending(); p != "" {
		t.Errorf("fresh extractor: pending %q", p)
	}
	x.Add(Entry{Type: "assistant", SessionID: "s1", Blocks: []Block{{Type: "tool_use", Name: "Bash", ID: "t1", Command: "go test ./..."}}})
	x.Add(Entry{Type: "user", SessionID: "s1", Blocks: []Block{{Type: "tool_result", ToolUseID: "t1", IsError: true,
		Text: "./a.go:3:2: undefined: Total\nFAIL\tex/a [build failed]"}}})
	x.Add(Entry{Type: "assistant", SessionID: "s1", Blocks: []Block{{Type: "tool_use", Name: "Bash", ID: "t2", Command: "go vet ./..."}}})
	y := NewExtractor("p")
	if err := y.RestorePending(x.Pending()); err != nil {
		t.Fatal(err)
	}
	if ep := y.st.Open["go test"]; ep == nil || len(ep.Errors) != 1 || y.st.Uses["t2"] != "go vet ./..." {
		t.Errorf("restored %+v %v", y.st.Open, y.st.Uses)
	}
	z := NewExtractor("p")
	if err := z.RestorePending(`{"open": [1]`); err == nil || len(z.st.Open) != 0 {
		t.Errorf("malformed pending: %v, %v", err, z.st.Open)
	}
	old := NewExtractor("p")
	if err := old.RestorePending(`{"failing":{"go test ./...":{"output":"x_test.go:9: got 1, want 2 for the total","files":["x.go"]}}}`); err != nil {
		t.Fatal(err)
	}
	if ep := old.st.Open["go test"]; ep == nil || len(ep.Errors) != 1 || len(ep.Edits) != 1 {
		t.Errorf("an earlier version's state restored as %+v", old.st.Open)
	}
}

// fakeToken is a GitHub-token-shaped value, built from parts.
var fakeToken = "gh" + "p_" + strings.Repeat("aB3dE6gH9k", 4)[:36]

// A secret in a prompt, a failing command or its output is redacted before
// anything is cut or kept: the session title cuts the prompt at 80 runes
// right inside the token (a cut token would not be recognised later), and
// the pending state of a failing command keeps its command and output.
func TestSecretsAreRedactedBeforeTheyAreCutOrKept(t *testing.T) {
	t.Parallel()
	x := NewExtractor("p")
	prompt := strings.Repeat("deploy ", 10) + "with " + fakeToken + " please"
	x.Add(Entry{Type: "user", SessionID: "s1", Text: prompt})
	cmd := "curl -H 'Authorization: Bearer " + fakeToken + "' https://ci.example.com/hook && go test ./..."
	x.Add(Entry{Type: "assistant", Blocks: []Block{{Type: "tool_use", Name: "Bash", ID: "toolu_1", Command: cmd}}})
	x.Add(Entry{Type: "user", Blocks: []Block{{Type: "tool_result", ToolUseID: "toolu_1", IsError: true,
		Text: "--- FAIL: TestHook\n    hook_test.go:9: the hook sent token=" + fakeToken + " to the wrong host\nFAIL"}}})
	if p := x.Pending(); p == "" || strings.Contains(p, fakeToken[:12]) {
		t.Errorf("pending state %q holds the secret (or is empty)", p)
	}
	y := NewExtractor("p")
	if err := y.RestorePending(`{"failing":{"` + cmd + `":{"output":"token=` + fakeToken + `"}}}`); err != nil {
		t.Fatal(err)
	}
	if p := y.Pending(); strings.Contains(p, fakeToken[:12]) {
		t.Errorf("restored pending state %q holds the secret", p)
	}
	if m := x.Finish(); m == nil || strings.Contains(m.Title, fakeToken[:6]) || strings.Contains(m.Content, fakeToken[:12]) {
		t.Errorf("the summary holds part of the secret: %+v", m)
	}
}
