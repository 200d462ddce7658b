package transcript_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/transcript"
)

const codexFixture = "testdata/codex-rollout-2026-05-01T10-00-00-0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b.jsonl"

// extractCodex reads data (from a session s) and returns the memories an
// extractor finds, the summary last.
func extractCodex(t *testing.T, data []byte, s *transcript.CodexSession) ([]*cairn.Memory, transcript.Stats) {
	t.Helper()
	x := transcript.NewExtractor("shop")
	var out []*cairn.Memory
	st, err := transcript.ReadCodex(bytes.NewReader(data), s, func(e transcript.Entry) error {
		out = append(out, x.Add(e)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if m := x.Finish(); m != nil {
		out = append(out, m)
	}
	return out, st
}

func TestCodexRolloutYieldsTheFixTheSignalsAndTheSession(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(codexFixture)
	if err != nil {
		t.Fatal(err)
	}
	mems, st := extractCodex(t, data, &transcript.CodexSession{})
	if st.Malformed != 1 {
		t.Errorf("malformed lines = %d, want 1 (the last)", st.Malformed)
	}
	byType := map[string]*cairn.Memory{}
	for _, m := range mems {
		byType[m.Type] = m
	}
	fix := byType["fix"]
	if fix == nil || fix.Title != "cart_test.go:14: got 10.13, want 10.12 — `go test ./cart/...`" || !strings.Contains(fix.Content, "**Fix:** edited cart/total.go") ||
		len(fix.FileRefs) != 1 || fix.FileRefs[0] != "cart/total.go" || fix.SessionID != "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" {
		t.Errorf("fix = %+v", fix)
	}
	if d := byType["decision"]; d == nil || !strings.Contains(d.Content, "banker's rounding") {
		t.Errorf("the MEMORY: signal was not read: %+v", d)
	}
	s := byType["session"]
	if s == nil || s.Title != "Session: Make the cart total round half to even" || !strings.Contains(s.Content, "- `go test ./cart/...` — cart_test.go:14") ||
		!strings.Contains(s.Content, "- cart/total.go") {
		t.Errorf("session = %+v", s)
	}
}

func TestCodexRolloutReadFromAnOffsetKeepsItsSession(t *testing.T) {
	t.Parallel()
	data, err := os.ReadFile(codexFixture)
	if err != nil {
		t.Fatal(err)
	}
	// The second read starts after the session_meta line: the session id
	// comes from the file's head (or its name), the cwd from its head.
	cut := bytes.Index(data, []byte("\n")) + 1
	s := transcript.CodexSessionOf(filepath.Base(codexFixture), bytes.NewReader(data))
	if s.ID != "0199a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b" || s.CWD != "/home/dev/shop" {
		t.Fatalf("CodexSessionOf = %+v", s)
	}
	if byName := transcript.CodexSessionOf(filepath.Base(codexFixture), nil); byName.ID != s.ID {
		t.Errorf("the id from the name alone = %q", byName.ID)
	}
	mems, _ := extractCodex(t, data[cut:], &s)
	for _, m := range mems {
		if m.SessionID != s.ID {
			t.Errorf("%s memory without the session: %+v", m.Type, m)
		}
	}
}

func TestCodexOutputsAndCommandsInEveryForm(t *testing.T) {
	t.Parallel()
	// Forms tried: a JSON output with exit_code, plain "Exit code: N", a
	// local_shell_call's argv, an old rollout line without the wrapper,
	// apply_patch through the shell, and a line that is not JSON.
	lines := strings.Join([]string{
		`{"id":"0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee","timestamp":"2025-06-01T00:00:00Z","instructions":null}`,
		`{"type":"message","role":"user","content":[{"type":"input_text","text":"fix lint"}]}`,
		`{"type":"local_shell_call","call_id":"c1","status":"completed","action":{"type":"exec","command":["bash","-lc","npm run lint"]}}`,
		`{"type":"local_shell_call_output","call_id":"c1","output":"Process exited with code 2\nerror: no-unused-vars"}`,
		`{"type":"function_call","name":"shell","arguments":"{\"command\":[\"bash\",\"-lc\",\"apply_patch <<'EOF'\\n*** Begin Patch\\n*** Update File: src/app.ts\\n*** End Patch\\nEOF\"]}","call_id":"c2"}`,
		`{"type":"local_shell_call","call_id":"c3","action":{"type":"exec","command":["bash","-lc","npm run lint"]}}`,
		`{"type":"local_shell_call_output","call_id":"c3","output":"Process exited with code 0\n"}`,
		`garbage`,
	}, "\n") + "\n"
	mems, st := extractCodex(t, []byte(lines), &transcript.CodexSession{})
	if st.Malformed != 1 {
		t.Errorf("malformed = %d, want 1", st.Malformed)
	}
	var fix *cairn.Memory
	for _, m := range mems {
		if m.Type == "fix" {
			fix = m
		}
	}
	if fix == nil || fix.Title != "error: no-unused-vars — `npm run lint`" || len(fix.FileRefs) != 1 || fix.FileRefs[0] != "src/app.ts" ||
		fix.SessionID != "0199aaaa-bbbb-7ccc-8ddd-eeeeeeeeeeee" {
		t.Errorf("fix = %+v (all %+v)", fix, mems)
	}
}
