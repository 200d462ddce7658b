package conversation

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

func at(s string) time.Time {
	t, err := time.Parse(time.RFC3339, s)
	if err != nil {
		panic(err)
	}
	return t
}

func TestAppendWritesMonthFiles(t *testing.T) {
	l := &Log{Dir: t.TempDir()}
	msgs := []Message{
		{Role: RoleUser, Content: "fix the timezone bug", SenderName: "Alice", Timestamp: at("2026-01-31T23:59:59Z")},
		// 00:30 in UTC+2 is still January in UTC.
		{Role: RoleAssistant, Content: "on it", Timestamp: at("2026-02-01T00:30:00+02:00")},
		{Role: RoleUser, Content: "thanks", Timestamp: at("2026-02-04T10:00:00Z")},
	}
	for _, m := range msgs {
		if n, err := l.Append(m); err != nil || n == 0 {
			t.Fatalf("Append: %d, %v", n, err)
		}
	}
	months, err := l.Months()
	if err != nil || strings.Join(months, ",") != "2026-01,2026-02" {
		t.Fatalf("Months = %v, %v", months, err)
	}
	jan, err := os.ReadFile(l.MonthPath("2026-01"))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"role":"user","content":"fix the timezone bug","senderName":"Alice","timestamp":"2026-01-31T23:59:59.000Z"}` + "\n" +
		`{"role":"assistant","content":"on it","timestamp":"2026-01-31T22:30:00.000Z"}` + "\n"
	if string(jan) != want {
		t.Errorf("January file:\n%s\nwant:\n%s", jan, want)
	}
	b, err := l.Read("2026-02", 0)
	if err != nil || len(b.Messages) != 1 || b.Messages[0].Content != "thanks" || b.To != 1 || len(b.Problems) != 0 {
		t.Fatalf("Read February = %+v, %v", b, err)
	}
	for _, p := range []string{l.Path(), l.MonthPath("2026-01")} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm()&0o077 != 0 {
			t.Errorf("%s has mode %v, want no group or other access", p, fi.Mode().Perm())
		}
	}
	if _, err := l.Append(Message{Role: "bot", Content: "x", Timestamp: at("2026-02-04T10:00:00Z")}); err == nil {
		t.Error("Append accepted role bot")
	}
	if _, err := l.Append(Message{Role: RoleUser, Content: "x"}); err == nil {
		t.Error("Append accepted a message without a timestamp")
	}
}

func TestConcurrentAppendsKeepLinesWhole(t *testing.T) {
	l := &Log{Dir: t.TempDir()}
	const writers, each = 8, 50
	big := strings.Repeat("x", 10000) // lines well over PIPE_BUF
	var wg sync.WaitGroup
	errs := make(chan error, writers)
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				_, err := l.Append(Message{Role: RoleUser, Content: fmt.Sprintf("w%d-%d %s", w, i, big),
					Timestamp: at("2026-03-01T00:00:00Z")})
				if err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	b, err := l.Read("2026-03", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Problems) != 0 || len(b.Messages) != writers*each || b.To != writers*each {
		t.Fatalf("got %d messages, %d lines, problems %v", len(b.Messages), b.To, b.Problems)
	}
	seen := map[string]bool{}
	for _, m := range b.Messages {
		id, rest, _ := strings.Cut(m.Content, " ")
		if rest != big || seen[id] {
			t.Fatalf("torn or repeated line %q", id)
		}
		seen[id] = true
	}
}

func TestStateRoundTripAndAtomicity(t *testing.T) {
	l := &Log{Dir: t.TempDir()}
	st, err := l.ReadState()
	if err != nil || len(st) != 0 {
		t.Fatalf("empty state = %v, %v", st, err)
	}
	want := State{
		"2026-01": {ChatID: "chat-1", ExtractedUpTo: 10, ProjectPath: "/p"},
		"2026-02": {ChatID: "chat-2", ExtractedUpTo: 3},
	}
	if err := l.WriteState(want); err != nil {
		t.Fatal(err)
	}
	// A temporary file left by a crashed writer is ignored.
	if err := os.WriteFile(filepath.Join(l.Path(), "."+StateFile+".tmp-123"), []byte(`{"2026-01":{"extractedUpTo":99`), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := l.ReadState()
	if err != nil || fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("ReadState = %v, %v; want %v", got, err, want)
	}
	raw, _ := os.ReadFile(filepath.Join(l.Path(), StateFile))
	var generic map[string]map[string]any
	if err := json.Unmarshal(raw, &generic); err != nil || generic["2026-01"]["chatId"] != "chat-1" || generic["2026-01"]["extractedUpTo"] != 10.0 {
		t.Errorf("_state.json = %s (%v)", raw, err)
	}
	// MarkExtracted raises the mark, never lowers it, and keeps the rest.
	if err := l.MarkExtracted("2026-01", 4); err != nil {
		t.Fatal(err)
	}
	if err := l.MarkExtracted("2026-02", 7); err != nil {
		t.Fatal(err)
	}
	got, _ = l.ReadState()
	if got["2026-01"].ExtractedUpTo != 10 || got["2026-02"].ExtractedUpTo != 7 || got["2026-02"].ChatID != "chat-2" {
		t.Errorf("after MarkExtracted: %v", got)
	}
	ents, _ := os.ReadDir(l.Path())
	for _, e := range ents {
		if strings.Contains(e.Name(), ".tmp-") && e.Name() != "."+StateFile+".tmp-123" {
			t.Errorf("WriteState left %s behind", e.Name())
		}
	}
	if err := os.WriteFile(filepath.Join(l.Path(), StateFile), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := l.ReadState(); err == nil {
		t.Error("a corrupt state file read without error")
	}
}

func TestMalformedLinesAreSkipped(t *testing.T) {
	l := &Log{Dir: t.TempDir()}
	ts := at("2026-02-04T10:00:00Z")
	if _, err := l.Append(Message{Role: RoleUser, Content: "one", Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
	f, err := os.OpenFile(l.MonthPath("2026-02"), os.O_WRONLY|os.O_APPEND, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("not json\n\n{\"content\":\"no role\",\"timestamp\":\"2026-02-04T10:00:00Z\"}\n{\"role\":\"user\",\"content\":\"x\",\"timestamp\":\"yesterday\"}\n")
	f.Close()
	if _, err := l.Append(Message{Role: RoleAssistant, Content: "two", Timestamp: ts}); err != nil {
		t.Fatal(err)
	}
	// A writer that died mid-line.
	f, _ = os.OpenFile(l.MonthPath("2026-02"), os.O_WRONLY|os.O_APPEND, 0)
	f.WriteString(`{"role":"user","con`)
	f.Close()

	b, err := l.Read("2026-02", 0)
	if err != nil {
		t.Fatal(err)
	}
	if len(b.Messages) != 2 || b.Messages[0].Content != "one" || b.Messages[1].Content != "two" || b.Messages[1].Line != 5 {
		t.Errorf("messages = %+v", b.Messages)
	}
	if b.To != 6 || len(b.Problems) != 5 {
		t.Errorf("To = %d, problems = %v", b.To, b.Problems)
	}
	if err := l.MarkExtracted("2026-02", 1); err != nil {
		t.Fatal(err)
	}
	msgs, from, err := l.Pending("2026-02")
	if err != nil || from != 1 || len(msgs) != 1 || msgs[0].Content != "two" {
		t.Errorf("Pending = %+v, %d, %v", msgs, from, err)
	}
	if _, err := l.Read("2026-13", 0); err == nil {
		t.Error("Read accepted month 2026-13")
	}
	if b, err := l.Read("2025-12", 0); err != nil || b.To != 0 || len(b.Messages) != 0 {
		t.Errorf("missing month = %+v, %v", b, err)
	}
}

// TestFolderNamesStayInsideAndApart tries project names that are paths,
// the state file's name, a month file's name and names too long for a
// file system: each folder is one plain name, and all differ.
func TestFolderNamesStayInsideAndApart(t *testing.T) {
	seen := map[string]string{}
	long := strings.Repeat("ü", 64)
	for _, p := range []string{"alpha", "../alpha", "a/b", "a%2Fb", `a\b`, "c:d", ".", "..", "_state.json", "2026-01.jsonl",
		"café", long, long[:len(long)-2] + "x"} {
		name := FolderName(p)
		if name == "" || name == "." || name == ".." || strings.ContainsAny(name, `/\:`) || strings.HasPrefix(name, "_") ||
			strings.HasSuffix(name, ".jsonl") || len(name) > maxFolderName || !utf8.ValidString(name) {
			t.Errorf("FolderName(%q) = %q", p, name)
		}
		if other, ok := seen[name]; ok {
			t.Errorf("FolderName(%q) = FolderName(%q) = %q", p, other, name)
		}
		seen[name] = p
	}
	if got := FolderName("alpha"); got != "alpha" {
		t.Errorf("FolderName(alpha) = %q", got)
	}
}
