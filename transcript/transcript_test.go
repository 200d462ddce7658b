package transcript

import (
	"os"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
)

// FakeToken is shape-correct for a GitHub token and fake; the fixture
// holds a placeholder so that no secret-looking string is committed.
var FakeToken = "gh" + "p_" + strings.Repeat("a1B2c3D4e5", 4)[:36]

func fixture(t *testing.T) string {
	t.Helper()
	b, err := os.ReadFile("testdata/session.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	return strings.ReplaceAll(string(b), "{{FAKE_GITHUB_TOKEN}}", FakeToken)
}

func TestReadAndExtract(t *testing.T) {
	x := NewExtractor("proj")
	var mems []*cairn.Memory
	st, err := Read(strings.NewReader(fixture(t)), func(e Entry) error {
		mems = append(mems, x.Add(e)...)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if st.Lines != 13 || st.Malformed != 1 || st.Skipped != 1 || st.Entries != 11 {
		t.Errorf("stats = %+v", st)
	}
	if int(st.Bytes) != len(fixture(t)) {
		t.Errorf("bytes = %d, want %d", st.Bytes, len(fixture(t)))
	}
	byType := map[string]*cairn.Memory{}
	for _, m := range mems {
		if byType[m.Type] != nil {
			t.Errorf("two %s memories", m.Type)
		}
		byType[m.Type] = m
	}
	if len(mems) != 4 {
		t.Errorf("want fix, pitfall, pattern, workflow; got %d memories", len(mems))
	}
	fix := byType["fix"]
	if fix == nil {
		t.Fatal("no fix")
	}
	if fix.Title != "Fix for `go test ./internal/auth/...` failure" || fix.Confidence != 0.7 ||
		fix.Source != cairn.SourceAutomatic || !strings.HasPrefix(fix.Content, "**Problem:** --- FAIL: TestSessionExpiry") ||
		!strings.HasSuffix(fix.Content, "\n\n**Fix:** edited internal/auth/session.go") ||
		len(fix.FileRefs) != 1 || fix.FileRefs[0] != "internal/auth/session.go" || fix.Tags[0] != "quality-gate" {
		t.Errorf("fix = %+v", fix)
	}
	if p := byType["pitfall"]; p == nil || !strings.HasPrefix(p.Content, "Session expiry is inclusive") {
		t.Errorf("pitfall = %+v", p)
	}
	if p := byType["pattern"]; p == nil || p.Content != "Auth tests pin the clock with auth.WithClock instead of sleeping." {
		t.Errorf("pattern = %+v", p)
	}
	s := x.Finish()
	if s == nil || s.Type != "session" || s.Key != "session:7f3c2a10-5b7e-4c1d-9a8e-2f6b0c4d1e93" ||
		!strings.HasPrefix(s.Title, "Session: The auth tests fail since yesterday") || len(s.Title) > len("Session: ")+80 ||
		!strings.Contains(s.Content, "- internal/auth/session.go") || !strings.Contains(s.Content, "- `go test ./internal/auth/...`") {
		t.Fatalf("session = %+v", s)
	}

	// A resumed extractor keeps the earlier summary's parts.
	y := NewExtractor("proj")
	y.Resume(s)
	if s2 := y.Finish(); s2.Content != s.Content {
		t.Errorf("resumed summary:\n%s\nwant:\n%s", s2.Content, s.Content)
	}
}

func TestReadPartialAndLongLines(t *testing.T) {
	in := `{"type":"user","message":{"role":"user","content":"hi"}}` + "\n" +
		`{"type":"user","message":{"role":"user","content":"` + strings.Repeat("x", 200<<10) + `"}}` + "\n" +
		`{"type":"user","message":{"role":"us`
	var n int
	st, err := Read(strings.NewReader(in), func(e Entry) error { n++; return nil })
	if err != nil {
		t.Fatal(err)
	}
	if n != 2 || st.Lines != 2 || int(st.Bytes) != strings.LastIndexByte(in, '\n')+1 {
		t.Errorf("n=%d stats=%+v", n, st)
	}
}

func TestGates(t *testing.T) {
	for _, c := range []string{"go test ./...", "cd x && go build ./cmd/...", "npm test", "pytest -q", "cargo test", "make lint", "golangci-lint run", "npx tsc --noEmit"} {
		if !IsGate(c) {
			t.Errorf("IsGate(%q) = false", c)
		}
	}
	for _, c := range []string{"ls", "git status", "go run .", "cat Makefile"} {
		if IsGate(c) {
			t.Errorf("IsGate(%q) = true", c)
		}
	}
}
