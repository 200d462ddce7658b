package extract

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/extract/extracttest"
)

var clock = time.Date(2026, 11, 22, 15, 4, 5, 0, time.UTC)

func fixedNow(t *time.Time) func() time.Time { return func() time.Time { return *t } }

func newClient(f *extracttest.Server, b Budget, cfg Config) *Client {
	cfg.BaseURL = f.URL() + "/v1/"
	if cfg.Model == "" {
		cfg.Model = "gpt-4o-mini"
	}
	now := clock
	return New(cfg, b, f.Client(), fixedNow(&now))
}

func code(err error) string { return cairn.ErrorCode(err) }

func TestGoodAnswer(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	b := &MemBudget{}
	c := newClient(f, b, Config{APIKey: "sk-test-1234", MaxCallsPerDay: 10, MaxTokensPerDay: 10000})
	mems, u, err := c.Extract(context.Background(), "user: let's keep SQLite in WAL mode\nassistant: done")
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 3 || u.Dropped != 0 {
		t.Fatalf("got %d memories, %d dropped", len(mems), u.Dropped)
	}
	m := mems[0]
	if m.Type != "decision" || m.Title != "SQLite with WAL for the local store" || !strings.Contains(m.Content, "WAL mode") ||
		m.Source != cairn.SourceExtracted || m.Confidence != 0.85 ||
		strings.Join(m.Tags, ",") != "sqlite,storage,wal" || strings.Join(m.FileRefs, ",") != "sqlite/*.go" {
		t.Errorf("first memory: %+v", m)
	}
	if mems[1].Type != "pitfall" || mems[1].Confidence != MaxExtractedConfidence {
		t.Errorf("second memory: type %q confidence %v", mems[1].Type, mems[1].Confidence)
	}
	if mems[2].Confidence != DefaultExtractedConfidence {
		t.Errorf("default confidence: %v", mems[2].Confidence)
	}
	want := Usage{Calls: 1, PromptTokens: 812, CompletionTokens: 164, CallsLeft: 9, TokensLeft: 10000 - 976}
	if u != want {
		t.Errorf("usage %+v, want %+v", u, want)
	}
	calls, tokens, _ := b.Spent("2026-11-22")
	if calls != 1 || tokens != 976 {
		t.Errorf("budget: %d calls %d tokens", calls, tokens)
	}
}

func TestRequest(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	c := newClient(f, nil, Config{Model: "llama3.1", APIKey: "sk-test-1234"})
	long := strings.Repeat("é", 2) + strings.Repeat("a", MaxInputChars-4) + "END"
	if _, _, err := c.Extract(context.Background(), long); err != nil {
		t.Fatal(err)
	}
	if f.Paths()[0] != "POST /v1/chat/completions" {
		t.Errorf("request %q", f.Paths()[0])
	}
	h := f.Headers()[0]
	if h.Get("Authorization") != "Bearer sk-test-1234" || h.Get("Content-Type") != "application/json" {
		t.Errorf("headers %v", h)
	}
	var req struct {
		Model    string `json:"model"`
		Messages []struct {
			Role, Content string
		} `json:"messages"`
		Temperature    *float64          `json:"temperature"`
		ResponseFormat map[string]string `json:"response_format"`
	}
	if err := json.Unmarshal(f.Bodies()[0], &req); err != nil {
		t.Fatal(err)
	}
	if req.Model != "llama3.1" || req.Temperature == nil || *req.Temperature != 0 || req.ResponseFormat["type"] != "json_object" {
		t.Errorf("request %s", f.Bodies()[0])
	}
	if len(req.Messages) != 2 || req.Messages[0].Role != "system" || req.Messages[0].Content != Prompt || req.Messages[1].Role != "user" {
		t.Fatalf("messages %+v", req.Messages)
	}
	user := req.Messages[1].Content
	if len([]rune(user)) != MaxInputChars || !strings.HasSuffix(user, "aEND") || !strings.HasPrefix(user, "éa") {
		t.Errorf("user message not cut to the last %d characters: %d runes, starts %q", MaxInputChars, len([]rune(user)), user[:4])
	}

	// No key: no Authorization header.
	c = newClient(f, nil, Config{})
	if _, _, err := c.Extract(context.Background(), "short"); err != nil {
		t.Fatal(err)
	}
	if h := f.Headers()[1].Get("Authorization"); h != "" {
		t.Errorf("Authorization sent without a key: %q", h)
	}
}

func TestFencedAnswer(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "fenced.json")
	mems, u, err := newClient(f, nil, Config{}).Extract(context.Background(), "text")
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 1 || mems[0].Type != "convention" || mems[0].Confidence != 0.7 || u.Dropped != 0 {
		t.Fatalf("%+v %+v", mems, u)
	}
}

func TestInvalidItemsDropped(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "invalid_items.json")
	mems, u, err := newClient(f, nil, Config{}).Extract(context.Background(), "text")
	if err != nil {
		t.Fatal(err)
	}
	if len(mems) != 3 || u.Dropped != 5 {
		t.Fatalf("got %d memories, %d dropped; want 3, 5", len(mems), u.Dropped)
	}
	fix := mems[0]
	if fix.Type != "fix" || fix.Confidence != MinExtractedConfidence || strings.Join(fix.Tags, ",") != "index,migration-notes" {
		t.Errorf("fix: %+v", fix)
	}
	if issue := mems[1]; issue.Type != "issue" || issue.Confidence != DefaultExtractedConfidence ||
		issue.Title != "The Windows build fails on long paths" || issue.Tags != nil {
		t.Errorf("issue (confidence \"high\", no title): %+v", issue)
	}
	if cons := mems[2]; cons.Type != "constraint" || cons.Confidence != 0.6 {
		t.Errorf("constraint: %+v", cons)
	}
}

func TestMalformedAnswers(t *testing.T) {
	for _, file := range []string{"malformed.json", "no_choices.json"} {
		t.Run(file, func(t *testing.T) {
			f := extracttest.NewServer(t, "testdata", 200, file)
			b := &MemBudget{}
			mems, u, err := newClient(f, b, Config{}).Extract(context.Background(), "text")
			if code(err) != cairn.EINVALID || !strings.Contains(err.Error(), "other than the JSON asked for") {
				t.Fatalf("err %v (%s)", err, code(err))
			}
			if mems != nil {
				t.Errorf("memories returned with an error: %v", mems)
			}
			// The call was answered, so its tokens count.
			calls, tokens, _ := b.Spent("2026-11-22")
			if calls != 1 || tokens == 0 || u.Calls != 1 {
				t.Errorf("budget %d calls %d tokens, usage %+v", calls, tokens, u)
			}
		})
	}
	t.Run("not json", func(t *testing.T) {
		f := extracttest.NewServer(t, "testdata", 200, "not_json.html")
		_, _, err := newClient(f, nil, Config{}).Extract(context.Background(), "text")
		if code(err) != cairn.EINVALID {
			t.Fatalf("err %v", err)
		}
	})
}

func TestNoUsageEstimated(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "empty_no_usage.json")
	b := &MemBudget{}
	text := strings.Repeat("word ", 400)
	mems, u, err := newClient(f, b, Config{}).Extract(context.Background(), text)
	if err != nil || len(mems) != 0 || mems == nil {
		t.Fatalf("%v %v", mems, err)
	}
	if u.PromptTokens != (len(Prompt)+len(text))/4 || u.CompletionTokens == 0 {
		t.Errorf("usage %+v", u)
	}
	_, tokens, _ := b.Spent("2026-11-22")
	if tokens != u.PromptTokens+u.CompletionTokens {
		t.Errorf("budget tokens %d", tokens)
	}
}

func TestHTTPErrors(t *testing.T) {
	cases := []struct {
		status int
		file   string
		want   string
	}{
		{500, "error_500.json", "HTTP 500"},
		{503, "error_500.json", "HTTP 503"},
		{429, "error_429.json", "HTTP 429"},
		{401, "error_401.json", "refused the key"},
		{403, "error_401.json", "refused the key"},
	}
	for _, tc := range cases {
		t.Run(tc.file, func(t *testing.T) {
			f := extracttest.NewServer(t, "testdata", tc.status, tc.file)
			b := &MemBudget{}
			mems, u, err := newClient(f, b, Config{MaxCallsPerDay: 5}).Extract(context.Background(), "text")
			if code(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err %v (%s)", err, code(err))
			}
			if strings.Contains(err.Error(), "sk-test") {
				t.Errorf("error leaks the response body: %v", err)
			}
			if mems != nil {
				t.Errorf("memories: %v", mems)
			}
			calls, tokens, _ := b.Spent("2026-11-22")
			if calls != 1 || tokens != 0 || u.Calls != 1 || u.CallsLeft != 4 {
				t.Errorf("budget %d calls %d tokens, usage %+v", calls, tokens, u)
			}
		})
	}
}

func TestTimeout(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	f.SetDelay(2 * time.Second)
	b := &MemBudget{}
	_, _, err := newClient(f, b, Config{Timeout: 50 * time.Millisecond}).Extract(context.Background(), "text")
	if code(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "did not answer") {
		t.Fatalf("err %v", err)
	}
	calls, tokens, _ := b.Spent("2026-11-22")
	if calls != 1 || tokens != 0 {
		t.Errorf("budget %d calls %d tokens", calls, tokens)
	}
}

func TestCallLimit(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	b := &MemBudget{}
	c := newClient(f, b, Config{MaxCallsPerDay: 2})
	for i := 0; i < 2; i++ {
		if _, _, err := c.Extract(context.Background(), "text"); err != nil {
			t.Fatal(err)
		}
	}
	_, u, err := c.Extract(context.Background(), "text")
	if code(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "call limit") ||
		!strings.Contains(err.Error(), "2026-11-23T00:00:00Z") {
		t.Fatalf("err %v", err)
	}
	if f.Hits() != 2 || u.Calls != 0 || u.CallsLeft != 0 {
		t.Errorf("server saw %d requests, usage %+v", f.Hits(), u)
	}
}

func TestTokenLimitAndReset(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	b := &MemBudget{}
	now := clock
	c := New(Config{BaseURL: f.URL() + "/v1", Model: "m", MaxTokensPerDay: 1000}, b, f.Client(), fixedNow(&now))
	if _, _, err := c.Extract(context.Background(), "text"); err != nil {
		t.Fatal(err) // 976 of 1000 spent: still under
	}
	if _, _, err := c.Extract(context.Background(), "text"); err != nil {
		t.Fatal(err) // 1952: over now
	}
	_, _, err := c.Extract(context.Background(), "text")
	if code(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "token limit") ||
		!strings.Contains(err.Error(), "2026-11-23T00:00:00Z") {
		t.Fatalf("err %v", err)
	}
	if f.Hits() != 2 {
		t.Fatalf("server saw %d requests, want 2", f.Hits())
	}
	// One second before midnight UTC: still refused.
	now = time.Date(2026, 11, 22, 23, 59, 59, 0, time.UTC)
	if _, _, err := c.Extract(context.Background(), "text"); code(err) != cairn.EUNAVAILABLE {
		t.Fatalf("err %v", err)
	}
	// The next UTC day, even if the local clock is in another zone.
	now = time.Date(2026, 11, 22, 19, 0, 0, 0, time.FixedZone("EST", -5*3600))
	_, u, err := c.Extract(context.Background(), "text")
	if err != nil {
		t.Fatal(err)
	}
	if f.Hits() != 3 || u.TokensLeft != 1000-976 {
		t.Errorf("hits %d usage %+v", f.Hits(), u)
	}
}

func TestFileBudget(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "budget.json")
	b := &FileBudget{Path: path}
	if c, tk, err := b.Spent("2026-11-22"); err != nil || c != 0 || tk != 0 {
		t.Fatalf("empty: %d %d %v", c, tk, err)
	}
	if err := b.Add("2026-11-22", 1, 100); err != nil {
		t.Fatal(err)
	}
	if err := b.Add("2026-11-22", 2, 50); err != nil {
		t.Fatal(err)
	}
	b2 := &FileBudget{Path: path} // a reopen
	if c, tk, err := b2.Spent("2026-11-22"); err != nil || c != 3 || tk != 150 {
		t.Fatalf("reopened: %d %d %v", c, tk, err)
	}
	if c, _, _ := b2.Spent("2026-11-23"); c != 0 {
		t.Errorf("other day: %d", c)
	}
	var raw map[string]DaySpend
	data, _ := os.ReadFile(path)
	if err := json.Unmarshal(data, &raw); err != nil || raw["2026-11-22"] != (DaySpend{Calls: 3, Tokens: 150}) {
		t.Errorf("file %s: %v", data, err)
	}
	if _, err := os.Stat(path + ".lock"); !os.IsNotExist(err) {
		t.Errorf("lock file left behind: %v", err)
	}
	// Old days are pruned.
	if err := b.Add("2027-01-10", 1, 1); err != nil {
		t.Fatal(err)
	}
	if c, _, _ := b.Spent("2026-11-22"); c != 0 {
		t.Errorf("old day kept")
	}
}

func TestFileBudgetConcurrent(t *testing.T) {
	path := filepath.Join(t.TempDir(), "budget.json")
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			b := &FileBudget{Path: path} // separate values, as separate processes would have
			for i := 0; i < each; i++ {
				if err := b.Add("2026-11-22", 1, 10); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	c, tk, err := (&FileBudget{Path: path}).Spent("2026-11-22")
	if err != nil || c != workers*each || tk != workers*each*10 {
		t.Fatalf("lost updates: %d calls %d tokens, %v", c, tk, err)
	}
}

func TestFileBudgetStaleLockAndCorrupt(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "budget.json")
	os.WriteFile(path+".lock", nil, 0o600)
	old := time.Now().Add(-time.Hour)
	os.Chtimes(path+".lock", old, old)
	b := &FileBudget{Path: path}
	if err := b.Add("2026-11-22", 1, 1); err != nil {
		t.Fatalf("stale lock not broken: %v", err)
	}
	os.WriteFile(path, []byte("{not json"), 0o600)
	if _, _, err := b.Spent("2026-11-22"); code(err) != cairn.EUNAVAILABLE {
		t.Fatalf("corrupt file: %v", err)
	}
	// A corrupt budget refuses to call.
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	if _, _, err := newClient(f, b, Config{}).Extract(context.Background(), "x"); code(err) != cairn.EUNAVAILABLE || f.Hits() != 0 {
		t.Fatalf("err %v hits %d", err, f.Hits())
	}
}

func TestExtractWithFileBudget(t *testing.T) {
	f := extracttest.NewServer(t, "testdata", 200, "good.json")
	path := filepath.Join(t.TempDir(), "budget.json")
	c := newClient(f, &FileBudget{Path: path}, Config{MaxCallsPerDay: 1})
	if _, _, err := c.Extract(context.Background(), "x"); err != nil {
		t.Fatal(err)
	}
	// Another process with its own client shares the spend.
	c2 := newClient(f, &FileBudget{Path: path}, Config{MaxCallsPerDay: 1})
	if _, _, err := c2.Extract(context.Background(), "x"); code(err) != cairn.EUNAVAILABLE || f.Hits() != 1 {
		t.Fatalf("err %v hits %d", err, f.Hits())
	}
}

func TestConfigFromEnv(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	if _, ok := ConfigFromEnv(env(nil)); ok {
		t.Error("on without configuration")
	}
	if _, ok := ConfigFromEnv(env(map[string]string{"CAIRN_MODEL_BASE_URL": "http://localhost:11434/v1"})); ok {
		t.Error("on without a model")
	}
	cfg, ok := ConfigFromEnv(env(map[string]string{
		"CAIRN_MODEL_BASE_URL": "http://localhost:11434/v1/", "CAIRN_MODEL": "llama3.1",
		"OPENAI_API_KEY": "sk-openai", "CAIRN_MODEL_MAX_CALLS": "7", "CAIRN_MODEL_MAX_TOKENS": "nope",
	}))
	want := Config{BaseURL: "http://localhost:11434/v1", Model: "llama3.1", APIKey: "sk-openai",
		MaxCallsPerDay: 7, MaxTokensPerDay: DefaultMaxTokensPerDay, Timeout: DefaultTimeout}
	if !ok || cfg != want {
		t.Errorf("got %+v %v, want %+v", cfg, ok, want)
	}
	cfg, _ = ConfigFromEnv(env(map[string]string{
		"CAIRN_MODEL_BASE_URL": "u", "CAIRN_MODEL": "m", "OPENAI_API_KEY": "sk-openai", "CAIRN_MODEL_API_KEY": "sk-cairn",
		"CAIRN_MODEL_MAX_TOKENS": "5000",
	}))
	if cfg.APIKey != "sk-cairn" || cfg.MaxTokensPerDay != 5000 || cfg.MaxCallsPerDay != DefaultMaxCallsPerDay {
		t.Errorf("got %+v", cfg)
	}
}

func TestStripFence(t *testing.T) {
	for in, want := range map[string]string{
		`{"memories":[]}`:                     `{"memories":[]}`,
		"```json\n{\"memories\":[]}\n```":     `{"memories":[]}`,
		"  ```\n{\"memories\":[]}\n```  \n":   `{"memories":[]}`,
		"```json {\"memories\":[]}```":        `{"memories":[]}`,
		"```JSON\r\n{\"memories\":[]}\r\n```": `{"memories":[]}`,
	} {
		if got := stripFence(in); got != want {
			t.Errorf("stripFence(%q) = %q", in, got)
		}
	}
}

// The package doc quotes Prompt; keep the two in step.
func TestPromptDocumented(t *testing.T) {
	doc, err := os.ReadFile("doc.go")
	if err != nil {
		t.Fatal(err)
	}
	var quoted []string
	for _, line := range strings.Split(Prompt, "\n") {
		if line == "" {
			quoted = append(quoted, "//")
		} else {
			quoted = append(quoted, "//\t"+line)
		}
	}
	if !strings.Contains(string(doc), strings.Join(quoted, "\n")) {
		t.Error("doc.go does not quote Prompt verbatim")
	}
}
