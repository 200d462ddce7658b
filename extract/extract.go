package extract

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/modelbudget"
	"github.com/cairn-dev/cairn/redact"
)

// Prompt is the system prompt sent with every extraction request.
const Prompt = `You extract durable memories for a software project from a conversation
between a developer and an AI coding agent, or from an excerpt of the
agent's transcript. A memory is something a future session on the same
project should know before it starts work.

Answer with one JSON object and nothing else:

{"memories": [{"type": "...", "title": "...", "content": "...",
  "tags": ["..."], "files": ["..."], "confidence": 0.0}]}

Fields:
- type: one of decision, constraint, pattern, convention, pitfall, fix,
  preference, context, issue, learning.
- title: a short summary, at most 10 words.
- content: the memory itself, 1 or 2 sentences, self-contained (a reader
  will not see the conversation).
- tags: a few lowercase keywords (letters, digits, "-", "_", ":", ".", "/").
- files: paths or globs of the files the memory is about; [] if none.
- confidence: 0 to 1, how sure you are that the memory is true and
  will stay useful.

Rules:
- Keep only durable, project-specific learnings: decisions and their
  reasons, constraints, conventions, recurring pitfalls and their fixes,
  the user's stated preferences.
- Skip small talk, one-off steps, the progress of the current task, and
  general programming knowledge any developer already has.
- Never include secrets: no API keys, tokens, passwords, private URLs
  with credentials, or personal data.
- Do not repeat the same fact in two memories.
- When nothing is worth keeping, answer {"memories": []}.`

// Limits and defaults.
const (
	DefaultMaxCallsPerDay  = 50
	DefaultMaxTokensPerDay = 200000
	DefaultTimeout         = 30 * time.Second

	// MaxInputChars is the most text sent; longer text keeps its end.
	MaxInputChars = 24000
	// MaxMemoryChars is the longest content an extracted memory may have.
	MaxMemoryChars = 2000

	MinExtractedConfidence     = 0.3
	MaxExtractedConfidence     = 0.9
	DefaultExtractedConfidence = 0.5

	maxResponseBytes = 4 << 20
)

// Config says which endpoint and model to use and how much to spend.
type Config struct {
	BaseURL         string // e.g. https://api.openai.com/v1, http://localhost:11434/v1
	Model           string
	APIKey          string        // may be empty for local servers
	MaxCallsPerDay  int           // hard limit; default 50
	MaxTokensPerDay int           // prompt + completion tokens as reported by the API; default 200000
	Timeout         time.Duration // per request; default 30 s
}

// ConfigFromEnv reads the configuration from the environment (see the
// package doc). ok is false when CAIRN_MODEL_BASE_URL or CAIRN_MODEL is
// unset: extraction is off.
func ConfigFromEnv(getenv func(string) string) (cfg Config, ok bool) {
	cfg = Config{
		BaseURL: strings.TrimSpace(getenv("CAIRN_MODEL_BASE_URL")),
		Model:   strings.TrimSpace(getenv("CAIRN_MODEL")),
		APIKey:  strings.TrimSpace(getenv("CAIRN_MODEL_API_KEY")),
	}
	if cfg.APIKey == "" {
		cfg.APIKey = strings.TrimSpace(getenv("OPENAI_API_KEY"))
	}
	cfg.MaxCallsPerDay = positiveInt(getenv("CAIRN_MODEL_MAX_CALLS"))
	cfg.MaxTokensPerDay = positiveInt(getenv("CAIRN_MODEL_MAX_TOKENS"))
	cfg = cfg.withDefaults()
	return cfg, cfg.BaseURL != "" && cfg.Model != ""
}

func positiveInt(s string) int {
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n <= 0 {
		return 0
	}
	return n
}

func (c Config) withDefaults() Config {
	if c.MaxCallsPerDay <= 0 {
		c.MaxCallsPerDay = DefaultMaxCallsPerDay
	}
	if c.MaxTokensPerDay <= 0 {
		c.MaxTokensPerDay = DefaultMaxTokensPerDay
	}
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	return c
}

// Usage reports what one Extract spent and what is left for the day.
type Usage struct {
	Calls            int // requests sent (0 or 1)
	PromptTokens     int
	CompletionTokens int
	CallsLeft        int // calls left today after this one
	TokensLeft       int // tokens left today after this one
	Dropped          int // items in the answer that failed validation
}

// Client extracts memories through one endpoint and model.
type Client struct {
	cfg    Config
	budget Budget
	hc     *http.Client
	now    func() time.Time
}

// New returns a Client. A nil budget counts in memory only (MemBudget); a
// nil hc uses http.DefaultClient; a nil now uses time.Now. Each request is
// bounded by cfg.Timeout.
func New(cfg Config, budget Budget, hc *http.Client, now func() time.Time) *Client {
	if budget == nil {
		budget = &MemBudget{}
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	if now == nil {
		now = time.Now
	}
	return &Client{cfg: cfg.withDefaults(), budget: budget, hc: hc, now: now}
}

type chatMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type chatRequest struct {
	Model          string            `json:"model"`
	Messages       []chatMessage     `json:"messages"`
	Temperature    float64           `json:"temperature"`
	ResponseFormat map[string]string `json:"response_format"`
}

type chatResponse struct {
	Choices []struct {
		Message struct {
			Content *string `json:"content"`
		} `json:"message"`
	} `json:"choices"`
	Usage *struct {
		PromptTokens     int `json:"prompt_tokens"`
		CompletionTokens int `json:"completion_tokens"`
		TotalTokens      int `json:"total_tokens"`
	} `json:"usage"`
}

// Extract asks the model for the memories worth keeping from text. It
// checks and records the daily budget (see the package doc), never marks
// anything as done and stores nothing: on error the caller keeps text for
// a later run. Usage is filled in on success and, as far as known, on
// error.
func (c *Client) Extract(ctx context.Context, text string) ([]*cairn.Memory, Usage, error) {
	var u Usage
	now := c.now()
	day := Day(now)
	lim := modelbudget.Limits{Calls: c.cfg.MaxCallsPerDay, Tokens: c.cfg.MaxTokensPerDay,
		CallsName: "CAIRN_MODEL_MAX_CALLS", TokensName: "CAIRN_MODEL_MAX_TOKENS"}
	var err error
	u.CallsLeft, u.TokensLeft, err = lim.Check(c.budget, now)
	if err != nil {
		return nil, u, err
	}
	calls, tokens := c.cfg.MaxCallsPerDay-u.CallsLeft, c.cfg.MaxTokensPerDay-u.TokensLeft

	body, err := json.Marshal(chatRequest{
		Model: c.cfg.Model,
		Messages: []chatMessage{
			{Role: "system", Content: Prompt},
			{Role: "user", Content: truncateEnd(text, MaxInputChars)},
		},
		Temperature:    0,
		ResponseFormat: map[string]string{"type": "json_object"},
	})
	if err != nil {
		return nil, u, cairn.WrapError(cairn.EINTERNAL, err, "cannot encode the model request")
	}

	// Count the call before sending it, so that failing calls count too
	// and concurrent processes see it.
	if err := c.budget.Add(day, 1, 0); err != nil {
		return nil, u, modelbudget.AsUnavailable(err, "cannot record the model budget")
	}
	u.Calls = 1
	u.CallsLeft = modelbudget.Left(c.cfg.MaxCallsPerDay, calls+1)

	content, resp, err := c.post(ctx, body)
	if err != nil {
		return nil, u, err
	}
	if resp.Usage != nil {
		u.PromptTokens, u.CompletionTokens = resp.Usage.PromptTokens, resp.Usage.CompletionTokens
		if u.PromptTokens+u.CompletionTokens == 0 && resp.Usage.TotalTokens > 0 {
			u.PromptTokens = resp.Usage.TotalTokens
		}
	} else {
		u.PromptTokens = (len(Prompt) + len(text)) / 4
		u.CompletionTokens = len(content) / 4
	}
	spent := u.PromptTokens + u.CompletionTokens
	if spent > 0 {
		if err := c.budget.Add(day, 0, spent); err != nil {
			return nil, u, modelbudget.AsUnavailable(err, "cannot record the model budget")
		}
	}
	u.TokensLeft = modelbudget.Left(c.cfg.MaxTokensPerDay, tokens+spent)
	if resp.Choices == nil {
		return nil, u, malformed(errors.New("no choices"))
	}

	mems, dropped, err := parseAnswer(content)
	if err != nil {
		return nil, u, malformed(err)
	}
	u.Dropped = dropped
	return mems, u, nil
}

func malformed(err error) error {
	return cairn.WrapError(cairn.EINVALID, err, "the model answered something other than the JSON asked for; try again later or with another model")
}

// post sends the request and returns the answer's content and the decoded
// response. A response without choices (or without content) comes back
// with a nil error and resp.Choices nil, so that its usage is recorded
// before Extract reports it as malformed.
func (c *Client) post(ctx context.Context, body []byte) (string, *chatResponse, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/chat/completions", bytes.NewReader(body))
	if err != nil {
		return "", nil, cairn.WrapError(cairn.EINVALID, err, "the model base URL %q is not usable", c.cfg.BaseURL)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return "", nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "the model endpoint did not answer within %s; try again later", c.cfg.Timeout)
		}
		return "", nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot reach the model endpoint; try again later")
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return "", nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "the model endpoint's answer was cut off; try again later")
	}
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return "", nil, cairn.Errorf(cairn.EUNAVAILABLE, "the model endpoint refused the key (HTTP %d); check CAIRN_MODEL_API_KEY", res.StatusCode)
	case res.StatusCode == http.StatusTooManyRequests:
		return "", nil, cairn.Errorf(cairn.EUNAVAILABLE, "the model endpoint is rate limiting (HTTP 429); try again later")
	case res.StatusCode >= 500:
		return "", nil, cairn.Errorf(cairn.EUNAVAILABLE, "the model endpoint failed (HTTP %d); try again later", res.StatusCode)
	case res.StatusCode < 200 || res.StatusCode > 299:
		return "", nil, cairn.Errorf(cairn.EUNAVAILABLE, "the model endpoint answered HTTP %d: %s", res.StatusCode, snippet(raw))
	}
	var resp chatResponse
	if err := json.Unmarshal(raw, &resp); err != nil {
		return "", nil, malformed(err)
	}
	if len(resp.Choices) == 0 || resp.Choices[0].Message.Content == nil {
		resp.Choices = nil
		return "", &resp, nil
	}
	return *resp.Choices[0].Message.Content, &resp, nil
}

func snippet(b []byte) string {
	s := strings.TrimSpace(string(b))
	s = strings.ToValidUTF8(s, "")
	if len(s) > 200 {
		s = cairn.CutBytes(s, 200) + "..."
	}
	return s
}

// truncateEnd keeps the last max runes of s.
func truncateEnd(s string, max int) string {
	if utf8.RuneCountInString(s) <= max {
		return s
	}
	n := 0
	for i := len(s); i > 0; {
		_, size := utf8.DecodeLastRuneInString(s[:i])
		i -= size
		n++
		if n == max {
			return s[i:]
		}
	}
	return s
}

type answerItem struct {
	Type       string          `json:"type"`
	Title      string          `json:"title"`
	Content    string          `json:"content"`
	Tags       []string        `json:"tags"`
	Files      []string        `json:"files"`
	Confidence json.RawMessage `json:"confidence"`
}

// parseAnswer reads the model's content: {"memories": [...]}, possibly in
// a ```json fence. Invalid items are dropped and counted.
func parseAnswer(content string) ([]*cairn.Memory, int, error) {
	s := stripFence(content)
	var ans struct {
		Memories *[]json.RawMessage `json:"memories"`
	}
	if err := json.Unmarshal([]byte(s), &ans); err != nil {
		return nil, 0, err
	}
	if ans.Memories == nil {
		return nil, 0, errors.New(`no "memories" list`)
	}
	mems := []*cairn.Memory{}
	dropped := 0
	for _, raw := range *ans.Memories {
		var it answerItem
		if err := json.Unmarshal(raw, &it); err != nil {
			dropped++
			continue
		}
		m, ok := toMemory(it)
		if !ok {
			dropped++
			continue
		}
		mems = append(mems, m)
	}
	return mems, dropped, nil
}

func stripFence(s string) string {
	s = strings.TrimSpace(s)
	if !strings.HasPrefix(s, "```") {
		return s
	}
	s = strings.TrimPrefix(s, "```")
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[i+1:] // drop the info string, e.g. "json"
	} else {
		s = strings.TrimPrefix(strings.TrimPrefix(s, "json"), "JSON")
	}
	s = strings.TrimSpace(s)
	s = strings.TrimSuffix(s, "```")
	return strings.TrimSpace(s)
}

func toMemory(it answerItem) (*cairn.Memory, bool) {
	typ := strings.ToLower(strings.TrimSpace(it.Type))
	if !cairn.ValidName(typ) {
		return nil, false
	}
	content := strings.TrimSpace(it.Content)
	if content == "" || utf8.RuneCountInString(content) > MaxMemoryChars || !utf8.ValidString(content) {
		return nil, false
	}
	conf := DefaultExtractedConfidence
	if c, ok := parseConfidence(it.Confidence); ok {
		conf = min(max(c, MinExtractedConfidence), MaxExtractedConfidence)
	}
	title := strings.Join(strings.Fields(it.Title), " ")
	if title == "" || len(title) > cairn.MaxTitleBytes || !utf8.ValidString(title) {
		title = cairn.TitleFromContent(redact.Text(content)) // redacted before it is cut
	}
	var tags []string
	seen := map[string]bool{}
	for _, t := range it.Tags {
		t = strings.ToLower(strings.TrimSpace(t))
		t = strings.ReplaceAll(t, " ", "-")
		if cairn.ValidName(t) && !seen[t] && len(tags) < cairn.MaxTags {
			seen[t] = true
			tags = append(tags, t)
		}
	}
	var files []string
	for _, f := range it.Files {
		f = strings.TrimSpace(f)
		if f != "" && len(f) <= 1024 && utf8.ValidString(f) && len(files) < cairn.MaxFileRefs {
			files = append(files, f)
		}
	}
	return &cairn.Memory{
		Type:       typ,
		Title:      title,
		Content:    content,
		Tags:       tags,
		FileRefs:   files,
		Confidence: conf,
		Source:     cairn.SourceExtracted,
	}, true
}

// parseConfidence reads a number, or a number in a string ("0.8"); anything
// else (absent, null, "high") means the default.
func parseConfidence(raw json.RawMessage) (float64, bool) {
	if len(raw) == 0 {
		return 0, false
	}
	var f float64
	if json.Unmarshal(raw, &f) == nil {
		return f, true
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if f, err := strconv.ParseFloat(strings.TrimSpace(s), 64); err == nil && f == f {
			return f, true
		}
	}
	return 0, false
}
