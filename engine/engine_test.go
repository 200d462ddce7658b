package engine_test

import (
	"context"
	"errors"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

func ptr[T any](v T) *T { return &v }

func newStore(t *testing.T) cairn.Store {
	t.Helper()
	s, err := sqlite.Open(t.Context(), filepath.Join(t.TempDir(), "c.db"), nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s
}

// clock is a settable clock for the engine.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

func TestNowIsUTCToTheMillisecond(t *testing.T) {
	t.Parallel()
	local := time.Date(2025, 1, 1, 12, 0, 0, 123456789, time.FixedZone("x", 3600))
	e := engine.New(newStore(t), &engine.Options{Now: func() time.Time { return local }})
	now := e.Now()
	if now.Location() != time.UTC || now.Nanosecond() != 123000000 || !now.Equal(local.Truncate(time.Millisecond)) {
		t.Errorf("Now() = %v, want %v in UTC", now, local.Truncate(time.Millisecond))
	}
	res, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Content: "x marks"})
	if err != nil {
		t.Fatal(err)
	}
	if !res.Memory.CreatedAt.Equal(now) || res.Memory.CreatedAt.Location() != time.UTC {
		t.Errorf("created_at %v, want %v", res.Memory.CreatedAt, now)
	}
}

func TestRedactAppliesOnEveryWritePath(t *testing.T) {
	t.Parallel()
	redact := func(s string) string { return strings.ReplaceAll(s, "hunter2", "[REDACTED:pw]") }
	e := engine.New(newStore(t), &engine.Options{Redact: redact})
	ctx := t.Context()

	added, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Title: "pw hunter2", Key: "k-hunter2", Content: "the password is hunter2",
		Type: "note-hunter2", Tags: []string{"ok", "pw:hunter2"}, FileRefs: []string{"conf/hunter2.env"},
		Agent: "a-hunter2", Hat: "h-hunter2", TaskID: "t-hunter2", SessionID: "s-hunter2"})
	if err != nil {
		t.Fatal(err)
	}
	updated, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Content: "a first version"})
	if err != nil {
		t.Fatal(err)
	}
	content := "now it is hunter2 again"
	if _, err := e.UpdateMemory(ctx, updated.Memory.ID, cairn.MemoryUpdate{Content: &content}); err != nil {
		t.Fatal(err)
	}
	rep, err := e.Import(ctx, slices.Values([]cairn.ImportRecord{{Line: 1, Memory: &cairn.Memory{Content: "imported hunter2"}}}), cairn.ImportOptions{Project: "p"})
	if err != nil || rep.Created != 1 {
		t.Fatalf("Import = %+v, %v", rep, err)
	}
	ms, _, err := e.FindMemories(ctx, cairn.MemoryFilter{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if len(ms) != 3 {
		t.Fatalf("%d memories, want 3", len(ms))
	}
	for _, m := range ms {
		fields := append([]string{m.Title, m.Key, m.Content, m.Type, m.Agent, m.Hat, m.TaskID, m.SessionID}, m.Tags...)
		for _, f := range append(fields, m.FileRefs...) {
			if strings.Contains(f, "hunter2") {
				t.Errorf("memory %s stores the secret: %q", m.ID, f)
			}
		}
	}
	if err := e.RecordUse(ctx, []string{added.Memory.ID}, "s-hunter2"); err != nil {
		t.Fatal(err)
	}
	acts, _, err := e.FindActivity(ctx, cairn.ActivityFilter{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range acts {
		if strings.Contains(a.SessionID+a.Detail, "hunter2") {
			t.Errorf("activity %+v stores the secret", a)
		}
	}
	if hits, err := e.Search(ctx, cairn.Query{Project: "p", Text: "hunter2"}); err != nil || len(hits) != 0 {
		t.Errorf("Search(secret) = %d hits, %v; want none", len(hits), err)
	}
	m, err := e.FindMemoryByID(ctx, added.Memory.ID)
	if err != nil || m.Key != "k-[REDACTED:pw]" {
		t.Fatalf("key %q, %v", m.Key, err)
	}
	// Names cannot hold "[REDACTED:pw]": the marker becomes "redacted:pw".
	if m.Type != "note-redacted:pw" || !slices.Equal(m.Tags, []string{"ok", "pw:redacted:pw"}) {
		t.Errorf("type %q, tags %q", m.Type, m.Tags)
	}
}

// TestOversizedContentIsRefusedBeforeRedaction: content, titles and names
// over their limits are refused without being handed to the redaction,
// whose cost grows with the text.
func TestOversizedContentIsRefusedBeforeRedaction(t *testing.T) {
	t.Parallel()
	redact := func(s string) string {
		if len(s) > cairn.MaxContentBytes {
			t.Errorf("redaction read %d bytes", len(s))
		}
		return s
	}
	e := engine.New(newStore(t), &engine.Options{Redact: redact})
	big := strings.Repeat("sk-", 1<<20)
	for _, m := range []*cairn.Memory{
		{Project: "p", Content: big},
		{Project: "p", Content: "x", Title: big},
		{Project: "p", Content: "x", SessionID: big},
		{Project: "p", Content: "x", Tags: []string{big}},
		{Project: "p", Content: "x", FileRefs: []string{big}},
	} {
		if _, err := e.AddMemory(t.Context(), m); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "more than the limit") {
			t.Errorf("AddMemory = %v, want EINVALID over the limit", err)
		}
	}
}

// TestReimportWithoutTimesChangesNothing: an export written by another tool
// may give ids but no times; importing it twice, later, must not rewrite
// the stored memories (their created_at in particular).
func TestReimportWithoutTimesChangesNothing(t *testing.T) {
	t.Parallel()
	c := &clock{t: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC)}
	e := engine.New(newStore(t), &engine.Options{Now: c.Now})
	ctx := t.Context()
	recs := func() []cairn.ImportRecord {
		return []cairn.ImportRecord{
			{Line: 1, Memory: &cairn.Memory{ID: "ext-1", Content: "first external record"}},
			{Line: 2, Memory: &cairn.Memory{ID: "ext-2", Content: "second external record", Type: "decision", Key: "k"}},
		}
	}
	if rep, err := e.Import(ctx, slices.Values(recs()), cairn.ImportOptions{Project: "p"}); err != nil || rep.Created != 2 {
		t.Fatalf("first import = %+v, %v", rep, err)
	}
	before, _, err := e.FindMemories(ctx, cairn.MemoryFilter{Project: "p", Sort: cairn.SortCreatedAsc})
	if err != nil {
		t.Fatal(err)
	}
	c.Advance(24 * time.Hour)
	rep, err := e.Import(ctx, slices.Values(recs()), cairn.ImportOptions{Project: "p"})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Unchanged != 2 {
		t.Errorf("second import a day later = %+v, want both unchanged", rep)
	}
	for _, b := range before {
		a, err := e.FindMemoryByID(ctx, b.ID)
		if err != nil {
			t.Fatal(err)
		}
		if !a.CreatedAt.Equal(b.CreatedAt) || !a.UpdatedAt.Equal(b.UpdatedAt) {
			t.Errorf("%s: created %v -> %v, updated %v -> %v", b.ID, b.CreatedAt, a.CreatedAt, b.UpdatedAt, a.UpdatedAt)
		}
	}
}

func TestImportOfFailingReaderWritesNothing(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	boom := errors.New("disk read failed")
	recs := []cairn.ImportRecord{
		{Line: 1, Memory: &cairn.Memory{Content: "read before the failure"}},
		{Err: boom},
	}
	_, err := e.Import(t.Context(), slices.Values(recs), cairn.ImportOptions{Project: "p", SkipInvalid: true})
	if !errors.Is(err, boom) || cairn.ErrorCode(err) == cairn.EINVALID {
		t.Errorf("Import with a reader error = %v (code %q), want the reader's error, not invalid input", err, cairn.ErrorCode(err))
	}
	if _, n, _ := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"}); n != 0 {
		t.Errorf("%d memories stored by a failed import", n)
	}
}

func TestImportStopsWhenCancelled(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	ctx, cancel := context.WithCancel(t.Context())
	recs := func(yield func(cairn.ImportRecord) bool) {
		yield(cairn.ImportRecord{Line: 1, Memory: &cairn.Memory{Content: "first"}})
		cancel()
		yield(cairn.ImportRecord{Line: 2, Memory: &cairn.Memory{Content: "second"}})
	}
	_, err := e.Import(ctx, recs, cairn.ImportOptions{Project: "p"})
	if err == nil {
		t.Fatal("cancelled import succeeded")
	}
	if _, n, _ := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p"}); n != 0 {
		t.Errorf("%d memories stored by a cancelled import", n)
	}
}

func TestSearchLeavesCallerQueryUnchanged(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	if _, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: "decision", Content: "use postgres"}); err != nil {
		t.Fatal(err)
	}
	types := []string{" Decision "}
	hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "postgres", Types: types})
	if err != nil || len(hits) != 1 {
		t.Errorf("Search = %d hits, %v; want 1", len(hits), err)
	}
	if types[0] != " Decision " {
		t.Errorf("Search rewrote the caller's Types to %q", types)
	}
}

func TestSearchTagFilterIgnoresCaseLikeTypeFilter(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	if _, err := e.AddMemory(t.Context(), &cairn.Memory{Project: "p", Tags: []string{"Team:Infra"}, Content: "use postgres"}); err != nil {
		t.Fatal(err)
	}
	for _, tag := range []string{"team:infra", "Team:Infra"} {
		hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: "postgres", Tags: []string{tag}})
		if err != nil || len(hits) != 1 {
			t.Errorf("Search with tag %q = %d hits, %v; want 1", tag, len(hits), err)
		}
	}
}

func TestFeedbackIsOffByDefaultAndCanBeTurnedOn(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	ctx := t.Context()
	on, off := engine.New(s, &engine.Options{Feedback: engine.DefaultFeedback()}), engine.New(s, nil)
	for _, c := range []string{
		"the deploy pipeline uses kubernetes helm charts",
		"helm charts live in the charts folder for kubernetes",
		"kubernetes helm charts are linted in CI",
		"unrelated note about the coffee machine",
	} {
		if _, err := on.AddMemory(ctx, &cairn.Memory{Project: "p", Content: c}); err != nil {
			t.Fatal(err)
		}
	}
	hitsOff, err := off.Search(ctx, cairn.Query{Project: "p", Text: "deploy pipeline"})
	if err != nil || len(hitsOff) != 1 {
		t.Fatalf("without feedback: %d hits, %v; want the one memory with the words", len(hitsOff), err)
	}
	hitsOn, err := on.Search(ctx, cairn.Query{Project: "p", Text: "deploy pipeline"})
	if err != nil || len(hitsOn) < 2 || hitsOn[0].Memory.ID != hitsOff[0].Memory.ID {
		t.Errorf("with feedback: %d hits, %v; want the direct match first and related memories after", len(hitsOn), err)
	}
	for _, h := range hitsOn {
		if strings.Contains(h.Memory.Content, "coffee") {
			t.Errorf("feedback found an unrelated memory: %q", h.Memory.Content)
		}
	}
}

func TestAnUpdateNeverLowersConfidenceUnlessAsked(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	ctx := t.Context()
	w, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "decision", Content: "Use WAL mode.", Confidence: 0.95})
	if err != nil {
		t.Fatal(err)
	}
	low, high := 0.3, 0.97
	if _, err := e.UpdateMemory(ctx, w.Memory.ID, cairn.MemoryUpdate{Confidence: &low}); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "lower-confidence") {
		t.Fatalf("lowering by an update: %v", err)
	}
	if m, _ := e.FindMemoryByID(ctx, w.Memory.ID); m.Confidence != 0.95 {
		t.Fatalf("confidence after a refused update: %v", m.Confidence)
	}
	if m, err := e.UpdateMemory(ctx, w.Memory.ID, cairn.MemoryUpdate{Confidence: &high}); err != nil || m.Confidence != 0.97 {
		t.Fatalf("raising: %v, %v", m, err)
	}
	if m, err := e.UpdateMemory(ctx, w.Memory.ID, cairn.MemoryUpdate{Confidence: &low, LowerConfidence: true}); err != nil || m.Confidence != 0.3 {
		t.Fatalf("lowering explicitly: %v, %v", m, err)
	}
}

func TestADerivedTitleIsCutNotRefused(t *testing.T) {
	t.Parallel()
	e := engine.New(newStore(t), nil)
	ctx := t.Context()
	long := "Fix for `go test ./" + strings.Repeat("pkg/é", 200) + "` failure" // 1,400 bytes, a multi-byte rune at every cut
	for _, src := range []cairn.Source{cairn.SourceAutomatic, cairn.SourceExtracted, cairn.SourceImported} {
		w, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "fix", Source: src, Title: long + " \x1b[31mred\x1b[0m", Content: "Content of " + string(src)})
		if err != nil {
			t.Fatalf("%s: %v", src, err)
		}
		if tl := w.Memory.Title; len(tl) > cairn.MaxTitleBytes || !utf8.ValidString(tl) || !strings.HasSuffix(tl, "…") || strings.ContainsRune(tl, 0x1b) {
			t.Errorf("%s: title %q (%d bytes)", src, tl, len(tl))
		}
	}
	// A title a person gives is theirs: too long is an error that says so.
	if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Title: long, Content: "explicit"}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("explicit long title: %v", err)
	}
	// An edit's title is a person's, whatever the memory's source.
	w, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Type: "fix", Source: cairn.SourceImported, Content: "an imported fix"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.UpdateMemory(ctx, w.Memory.ID, cairn.MemoryUpdate{Title: &long}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("an edit's long title of an imported memory: %v", err)
	}
	// Far too long is refused whatever its source: redaction reads it.
	if _, err := e.AddMemory(ctx, &cairn.Memory{Project: "p", Source: cairn.SourceAutomatic, Title: strings.Repeat("x", 5*cairn.MaxTitleBytes), Content: "huge"}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("huge derived title: %v", err)
	}
}
