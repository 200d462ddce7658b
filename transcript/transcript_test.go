package transcript

import (
	"os"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture/failure"
)

// FakeToken is shape-correct for a GitHub token and fake; the fixture
// holds a placeholder so that no secret-looking string is committed.
var FakeToken = "gh" + "p_" + strings.Repeat("a1B2c3D4e5", 4)[:36]

func fixture(t testing.TB) string {
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
	const errLine = "session_test.go:42: session expired at 10:00:00, want still valid at 09:59:59"
	if fix.Title != errLine+" — `go test ./internal/auth/...`" || fix.Confidence != 0.7 || fix.Key != FixKey(errLine) ||
		fix.Source != cairn.SourceAutomatic || !strings.HasPrefix(fix.Content, "**Error:** `go test ./internal/auth/...` failed (TestSessionExpiry) with:\n"+errLine+"\n") ||
		!strings.Contains(fix.Content, "\n**Fix:** edited internal/auth/session.go\n") ||
		len(fix.FileRefs) != 1 || fix.FileRefs[0] != "internal/auth/session.go" || !slices.Contains(fix.Tags, "quality-gate") ||
		!slices.Contains(fix.Tags, failure.ErrorTag(errLine)) || !slices.Contains(fix.Tags, "command:go-test") ||
		!fix.CreatedAt.Equal(time.Date(2025, 7, 1, 10, 8, 0, 0, time.UTC)) {
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
		!strings.Contains(s.Content, "- internal/auth/session.go") || !strings.Contains(s.Content, "- `go test ./internal/auth/...` — "+errLine) ||
		!strings.Contains(s.Content, "**Ended:** The tests pass now.") || !s.CreatedAt.Equal(time.Date(2025, 7, 1, 10, 1, 0, 0, time.UTC)) {
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

func TestCriticFindings(t *testing.T) {
	b, err := os.ReadFile("testdata/critic.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	run := func(hat string) []*cairn.Memory {
		x := NewExtractor("proj")
		x.Hat = hat
		var mems []*cairn.Memory
		if _, err := Read(strings.NewReader(string(b)), func(e Entry) error {
			mems = append(mems, x.Add(e)...)
			return nil
		}); err != nil {
			t.Fatal(err)
		}
		return mems
	}
	if mems := run("creator"); len(mems) != 0 {
		t.Fatalf("a creator's review made memories: %v", mems)
	}
	mems := run(CriticHat)
	wantTitles := []string{
		"Expiry uses local time: `session.Expired()` compares against `time.Now()` ins...",
		"The refresh path never closes the response body.",
		"Bug: `Store.Get` returns nil, nil when the session is missing; callers derefe...",
		"Deleting a session does not invalidate the cache.",
	}
	if len(mems) != len(wantTitles) {
		for _, m := range mems {
			t.Logf("%q", m.Title)
		}
		t.Fatalf("want %d findings, got %d", len(wantTitles), len(mems))
	}
	for i, m := range mems {
		if m.Title != wantTitles[i] {
			t.Errorf("title %d = %q, want %q", i, m.Title, wantTitles[i])
		}
		if m.Type != "pitfall" || m.Confidence != 0.6 || m.Source != cairn.SourceAutomatic || m.Project != "proj" ||
			strings.Join(m.Tags, ",") != "review,critic-finding" || m.SessionID != "c1d2e3f4-0000-4000-8000-00000000c71c" {
			t.Errorf("memory %d: %+v", i, m)
		}
	}
	if mems[1].Content != "The refresh path never closes the response body.\nIt leaks a connection per refresh." {
		t.Errorf("continuation: %q", mems[1].Content)
	}
}

func TestFindingsRules(t *testing.T) {
	for _, tc := range []struct {
		text string
		want int
	}{
		{"- a\n- b", 0},
		{"Problems:\n- a\n- b\n\n- c", 3},
		{"Problems:\n- a\nAll good now.\n- b", 1},
		{"# Summary\n- Problem: x\n- **Issue** y\n- problems are none", 2},
		{"Findings\n\n```\n- code\n```", 0},
	} {
		if got := Findings(tc.text); len(got) != tc.want {
			t.Errorf("Findings(%q) = %q, want %d", tc.text, got, tc.want)
		}
	}
}
