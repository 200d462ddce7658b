package transcript

import (
	"strings"
	"testing"
)

// Pending is empty when nothing waits, and RestorePending refuses a text
// it cannot read without changing the extractor.
func TestPendingStateRoundTripAndBadText(t *testing.T) {
	x := NewExtractor("p")
	if p := x.Pending(); p != "" {
		t.Errorf("fresh extractor: pending %q", p)
	}
	x.failing["go test ./..."] = &failure{output: "FAIL", files: []string{"a.go"}}
	x.uses["toolu_9"] = "go vet ./..."
	y := NewExtractor("p")
	if err := y.RestorePending(x.Pending()); err != nil {
		t.Fatal(err)
	}
	if f := y.failing["go test ./..."]; f == nil || f.output != "FAIL" || len(f.files) != 1 || y.uses["toolu_9"] != "go vet ./..." {
		t.Errorf("restored %+v %v", y.failing, y.uses)
	}
	z := NewExtractor("p")
	if err := z.RestorePending(`{"failing": [1]`); err == nil || len(z.failing) != 0 {
		t.Errorf("malformed pending: %v, %v", err, z.failing)
	}
}

// fakeToken is a GitHub-token-shaped value, built from parts.
var fakeToken = "gh" + "p_" + strings.Repeat("aB3dE6gH9k", 4)[:36]

// A secret in a prompt, a failing command or its output is redacted before
// anything is cut or kept: the session title cuts the prompt at 80 runes
// right inside the token (a cut token would not be recognised later), and
// the pending state of a failing gate keeps its command and output.
func TestSecretsAreRedactedBeforeTheyAreCutOrKept(t *testing.T) {
	x := NewExtractor("p")
	prompt := strings.Repeat("deploy ", 10) + "with " + fakeToken + " please"
	x.Add(Entry{Type: "user", SessionID: "s1", Text: prompt})
	cmd := "curl -H 'Authorization: Bearer " + fakeToken + "' https://ci.example.com/hook && go test ./..."
	x.Add(Entry{Type: "assistant", Blocks: []Block{{Type: "tool_use", Name: "Bash", ID: "toolu_1", Command: cmd}}})
	x.Add(Entry{Type: "user", Blocks: []Block{{Type: "tool_result", ToolUseID: "toolu_1", IsError: true,
		Text: "--- FAIL: TestHook\n    hook_test.go:9: sent token=" + fakeToken + "\nFAIL"}}})
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
	// The content is whole: the engine redacts it when it is stored.
	if m := x.Finish(); m == nil || strings.Contains(m.Title, fakeToken[:6]) {
		t.Errorf("session title holds part of the secret: %+v", m)
	}
}
