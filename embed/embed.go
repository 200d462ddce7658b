// Package embed turns text into vectors through an OpenAI-compatible
// embeddings endpoint: OpenAI itself, Ollama's /v1 API, llama.cpp's server
// (started with --embeddings), vLLM, LM Studio, or anything else that
// speaks the same wire format.
//
// A request is
//
//	POST {BaseURL}/embeddings
//	Authorization: Bearer {APIKey}        (only when a key is set)
//	{"model": Model, "input": ["text", …], "encoding_format": "float",
//	 "dimensions": Dimensions}            (dimensions only when set)
//
// and the answer {"data": [{"index": 0, "embedding": [0.1, …]}, …],
// "usage": {"prompt_tokens": N}}. Texts are sent BatchSize at a time, each
// cut to MaxInputChars characters. A request that fails in a way that may
// pass (no connection, HTTP 429 or 5xx) is tried again after a backoff
// (Retries times; a Retry-After the server sends is honoured up to
// maxBackoff); a refused key, another 4xx or a malformed answer is not.
//
// Every request counts against the daily limits of package modelbudget,
// checked before it is sent: a request that fails counts too.
package embed

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"math"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/modelbudget"
)

// Defaults.
const (
	DefaultTimeout         = 10 * time.Second
	DefaultBatchSize       = 64
	DefaultRetries         = 2
	DefaultMaxCallsPerDay  = 2000
	DefaultMaxTokensPerDay = 2_000_000

	// MaxInputChars is the most of one text that is sent: about 2,000
	// tokens, within every common embedding model's window.
	MaxInputChars = 8000

	maxResponseBytes = 64 << 20
	firstBackoff     = 250 * time.Millisecond
	maxBackoff       = 5 * time.Second
)

// Config says which endpoint and model to use and how much to spend.
type Config struct {
	BaseURL    string // e.g. https://api.openai.com/v1, http://localhost:11434/v1
	Model      string
	Dimensions int    // asked of the model when > 0 (OpenAI's text-embedding-3 models can shorten)
	APIKey     string // may be empty for local servers; never logged
	// KeyName names where the key came from (an environment variable),
	// for messages about a refused key.
	KeyName         string
	Timeout         time.Duration // per request; 0 means DefaultTimeout
	BatchSize       int           // texts per request; 0 means DefaultBatchSize
	Retries         int           // further tries of a failed request; 0 means DefaultRetries, < 0 none
	MaxCallsPerDay  int           // 0 means DefaultMaxCallsPerDay
	MaxTokensPerDay int           // 0 means DefaultMaxTokensPerDay
	// LimitNames name the settings of the two limits, for messages.
	CallsLimitName, TokensLimitName string
	// PauseFile, when set, is where a failure of the endpoint is
	// remembered for Pause, across processes: every process that reads it
	// ranks lexically at once instead of spending a timeout on an
	// endpoint another process just found down. A success removes it.
	PauseFile string
	// Pause is how long a failure is remembered; 0 means DefaultPause.
	Pause time.Duration
}

// DefaultPause is how long a failed endpoint is left alone.
const DefaultPause = 30 * time.Second

func (c Config) withDefaults() Config {
	c.BaseURL = strings.TrimRight(strings.TrimSpace(c.BaseURL), "/")
	if c.Timeout <= 0 {
		c.Timeout = DefaultTimeout
	}
	if c.BatchSize <= 0 {
		c.BatchSize = DefaultBatchSize
	}
	if c.Retries == 0 {
		c.Retries = DefaultRetries
	} else if c.Retries < 0 {
		c.Retries = 0
	}
	if c.MaxCallsPerDay <= 0 {
		c.MaxCallsPerDay = DefaultMaxCallsPerDay
	}
	if c.MaxTokensPerDay <= 0 {
		c.MaxTokensPerDay = DefaultMaxTokensPerDay
	}
	if c.KeyName == "" {
		c.KeyName = "the API key"
	}
	if c.Pause <= 0 {
		c.Pause = DefaultPause
	}
	if c.CallsLimitName == "" {
		c.CallsLimitName = "embeddings.max_requests_per_day"
	}
	if c.TokensLimitName == "" {
		c.TokensLimitName = "embeddings.max_tokens_per_day"
	}
	return c
}

// Usage reports what one Embed spent and what is left for the day.
type Usage struct {
	Calls      int // requests sent, retries included
	Tokens     int // as reported by the endpoint, else estimated (4 characters a token)
	CallsLeft  int
	TokensLeft int
}

// Client embeds text through one endpoint and model. It is safe for
// concurrent use.
type Client struct {
	cfg    Config
	budget modelbudget.Budget
	hc     *http.Client
	now    func() time.Time
	sleep  func(context.Context, time.Duration) error
}

// New returns a Client. A nil budget counts in memory only; a nil hc uses
// http.DefaultClient; a nil now uses time.Now. It fails with EINVALID when
// the base URL or the model is missing.
func New(cfg Config, budget modelbudget.Budget, hc *http.Client, now func() time.Time) (*Client, error) {
	cfg = cfg.withDefaults()
	if cfg.BaseURL == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the embeddings endpoint has no base URL (embeddings.base_url)")
	}
	if !strings.HasPrefix(cfg.BaseURL, "http://") && !strings.HasPrefix(cfg.BaseURL, "https://") {
		return nil, cairn.Errorf(cairn.EINVALID, "the embeddings base URL %q must start with http:// or https://", cfg.BaseURL)
	}
	if strings.TrimSpace(cfg.Model) == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the embeddings endpoint has no model (embeddings.model)")
	}
	if budget == nil {
		budget = &modelbudget.MemBudget{}
	}
	if hc == nil {
		hc = http.DefaultClient
	}
	if now == nil {
		now = time.Now
	}
	return &Client{cfg: cfg, budget: budget, hc: hc, now: now, sleep: sleepCtx}, nil
}

// Model is the model the client asks for; vectors are stored under it.
func (c *Client) Model() string { return c.cfg.Model }

// BatchSize is how many texts one request carries.
func (c *Client) BatchSize() int { return c.cfg.BatchSize }

func sleepCtx(ctx context.Context, d time.Duration) error {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

type request struct {
	Model          string   `json:"model"`
	Input          []string `json:"input"`
	EncodingFormat string   `json:"encoding_format"`
	Dimensions     int      `json:"dimensions,omitempty"`
}

type response struct {
	Data []struct {
		Index     *int      `json:"index"`
		Embedding []float64 `json:"embedding"`
	} `json:"data"`
	Usage *struct {
		PromptTokens int `json:"prompt_tokens"`
		TotalTokens  int `json:"total_tokens"`
	} `json:"usage"`
}

// Embed returns one vector per text, in order, all of one length. Texts
// are sent BatchSize at a time; on error nothing is returned (Usage still
// says what was spent). Errors: EINVALID for no texts or an empty one and
// for a malformed answer; EUNAVAILABLE when the endpoint cannot be
// reached, fails, refuses the key, or a daily limit is reached.
func (c *Client) Embed(ctx context.Context, texts []string) ([][]float32, Usage, error) {
	var u Usage
	if len(texts) == 0 {
		return nil, u, cairn.Errorf(cairn.EINVALID, "nothing to embed")
	}
	if err := c.paused(); err != nil {
		return nil, u, err
	}
	out, err := c.embed(ctx, texts, &u)
	switch {
	case err == nil:
		c.clearPause()
	case cairn.ErrorCode(err) == cairn.EUNAVAILABLE && ctx.Err() == nil:
		// Down, failing, refusing the key, over a daily limit: the next
		// process need not find out again. A caller's own deadline (a
		// prompt's 150 ms) or cancellation says nothing of the endpoint,
		// which a search with more time may still use.
		c.pause(err)
	}
	return out, u, err
}

// pauseState is what PauseFile holds.
type pauseState struct {
	Endpoint string    `json:"endpoint"` // base URL and model: another configuration is not paused
	FailedAt time.Time `json:"failed_at"`
	Error    string    `json:"error"`
}

func (c *Client) endpoint() string { return c.cfg.BaseURL + " " + c.cfg.Model }

// paused is EUNAVAILABLE while PauseFile records a failure of this
// endpoint younger than Pause.
func (c *Client) paused() error {
	if c.cfg.PauseFile == "" {
		return nil
	}
	b, err := os.ReadFile(c.cfg.PauseFile)
	if err != nil {
		return nil
	}
	var st pauseState
	if json.Unmarshal(b, &st) != nil || st.Endpoint != c.endpoint() {
		return nil
	}
	age := c.now().Sub(st.FailedAt)
	if age < 0 || age >= c.cfg.Pause {
		return nil
	}
	return cairn.Errorf(cairn.EUNAVAILABLE, "the embeddings endpoint failed %s ago (%s); it is not asked again for %s",
		age.Round(time.Second), st.Error, (c.cfg.Pause - age).Round(time.Second))
}

// pause records err as the endpoint's failure, now.
func (c *Client) pause(err error) {
	if c.cfg.PauseFile == "" {
		return
	}
	b, _ := json.Marshal(pauseState{Endpoint: c.endpoint(), FailedAt: c.now().UTC(), Error: cut(cairn.ErrorMessage(err), 200)})
	tmp := c.cfg.PauseFile + ".tmp" + strconv.Itoa(os.Getpid())
	if os.WriteFile(tmp, b, 0o600) == nil && os.Rename(tmp, c.cfg.PauseFile) != nil {
		os.Remove(tmp)
	}
}

// clearPause forgets a recorded failure once the endpoint answered.
func (c *Client) clearPause() {
	if c.cfg.PauseFile != "" {
		os.Remove(c.cfg.PauseFile)
	}
}

func (c *Client) embed(ctx context.Context, texts []string, u *Usage) ([][]float32, error) {
	out := make([][]float32, 0, len(texts))
	for start := 0; start < len(texts); start += c.cfg.BatchSize {
		batch := texts[start:min(len(texts), start+c.cfg.BatchSize)]
		vs, err := c.embedBatch(ctx, batch, u)
		if err != nil {
			return nil, err
		}
		if len(out) > 0 && len(vs[0]) != len(out[0]) {
			return nil, malformed(errors.New("vectors of different lengths in one answer"))
		}
		out = append(out, vs...)
	}
	return out, nil
}

func (c *Client) embedBatch(ctx context.Context, texts []string, u *Usage) ([][]float32, error) {
	in := make([]string, len(texts))
	chars := 0
	for i, t := range texts {
		if strings.TrimSpace(t) == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "text %d to embed is empty", i+1)
		}
		in[i] = cut(t, MaxInputChars)
		chars += len(in[i])
	}
	body, err := json.Marshal(request{Model: c.cfg.Model, Input: in, EncodingFormat: "float", Dimensions: c.cfg.Dimensions})
	if err != nil {
		return nil, cairn.WrapError(cairn.EINTERNAL, err, "cannot encode the embeddings request")
	}
	lim := modelbudget.Limits{Calls: c.cfg.MaxCallsPerDay, Tokens: c.cfg.MaxTokensPerDay,
		CallsName: c.cfg.CallsLimitName, TokensName: c.cfg.TokensLimitName}
	for attempt := 0; ; attempt++ {
		now := c.now()
		day := modelbudget.Day(now)
		if u.CallsLeft, u.TokensLeft, err = lim.Check(c.budget, now); err != nil {
			return nil, err
		}
		// Count the call before sending it, so that failing calls count
		// too and concurrent processes see it.
		if err := c.budget.Add(day, 1, 0); err != nil {
			return nil, modelbudget.AsUnavailable(err, "cannot record the model budget")
		}
		u.Calls++
		u.CallsLeft = max(0, u.CallsLeft-1)
		resp, retryAfter, err := c.post(ctx, body)
		if err == nil {
			tokens := chars / 4
			if resp.Usage != nil {
				tokens = max(resp.Usage.PromptTokens, resp.Usage.TotalTokens)
			}
			if tokens > 0 {
				if err := c.budget.Add(day, 0, tokens); err != nil {
					return nil, modelbudget.AsUnavailable(err, "cannot record the model budget")
				}
				u.Tokens += tokens
				u.TokensLeft = max(0, u.TokensLeft-tokens)
			}
			return c.vectors(resp, len(texts))
		}
		if retryAfter < 0 || attempt >= c.cfg.Retries || ctx.Err() != nil {
			return nil, err
		}
		wait := firstBackoff << attempt
		if retryAfter > 0 {
			wait = retryAfter
		}
		if err := c.sleep(ctx, min(wait, maxBackoff)); err != nil {
			return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "gave up waiting to try the embeddings endpoint again")
		}
	}
}

// vectors checks the answer: one vector per text, each index once, all of
// one length (Dimensions when set), finite numbers.
func (c *Client) vectors(resp *response, n int) ([][]float32, error) {
	if len(resp.Data) != n {
		return nil, malformed(errors.New("the answer has " + strconv.Itoa(len(resp.Data)) + " vectors for " + strconv.Itoa(n) + " texts"))
	}
	out := make([][]float32, n)
	for i, d := range resp.Data {
		idx := i
		if d.Index != nil {
			idx = *d.Index
		}
		if idx < 0 || idx >= n || out[idx] != nil {
			return nil, malformed(errors.New("a vector's index is out of range or repeated"))
		}
		if len(d.Embedding) == 0 {
			return nil, malformed(errors.New("an empty vector"))
		}
		if c.cfg.Dimensions > 0 && len(d.Embedding) != c.cfg.Dimensions {
			return nil, malformed(errors.New("a vector of " + strconv.Itoa(len(d.Embedding)) + " dimensions, not the " + strconv.Itoa(c.cfg.Dimensions) + " configured (embeddings.dimensions)"))
		}
		if len(d.Embedding) != len(resp.Data[0].Embedding) {
			return nil, malformed(errors.New("vectors of different lengths in one answer"))
		}
		v := make([]float32, len(d.Embedding))
		for j, x := range d.Embedding {
			if math.IsNaN(x) || math.IsInf(x, 0) {
				return nil, malformed(errors.New("a vector holds a number that is not finite"))
			}
			v[j] = float32(x)
		}
		out[idx] = v
	}
	return out, nil
}

func malformed(err error) error {
	return cairn.WrapError(cairn.EINVALID, err, "the embeddings endpoint answered something other than the vectors asked for; check embeddings.base_url and embeddings.model")
}

// post sends one request. retryAfter is -1 when trying again cannot help,
// 0 when it may (after the usual backoff), and the server's Retry-After
// when it said one.
func (c *Client) post(ctx context.Context, body []byte) (*response, time.Duration, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, c.cfg.BaseURL+"/embeddings", bytes.NewReader(body))
	if err != nil {
		return nil, -1, cairn.WrapError(cairn.EINVALID, err, "the embeddings base URL %q is not usable", c.cfg.BaseURL)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if c.cfg.APIKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.cfg.APIKey)
	}
	res, err := c.hc.Do(req)
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) {
			return nil, 0, cairn.WrapError(cairn.EUNAVAILABLE, err, "the embeddings endpoint did not answer in time")
		}
		return nil, 0, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot reach the embeddings endpoint %s", c.cfg.BaseURL)
	}
	defer res.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(res.Body, maxResponseBytes))
	if err != nil {
		return nil, 0, cairn.WrapError(cairn.EUNAVAILABLE, err, "the embeddings endpoint's answer was cut off")
	}
	switch {
	case res.StatusCode == http.StatusUnauthorized || res.StatusCode == http.StatusForbidden:
		return nil, -1, cairn.Errorf(cairn.EUNAVAILABLE, "the embeddings endpoint refused the key (HTTP %d); check %s", res.StatusCode, c.cfg.KeyName)
	case res.StatusCode == http.StatusTooManyRequests:
		return nil, retryAfter(res.Header.Get("Retry-After")), cairn.Errorf(cairn.EUNAVAILABLE, "the embeddings endpoint is rate limiting (HTTP 429)")
	case res.StatusCode >= 500:
		return nil, retryAfter(res.Header.Get("Retry-After")), cairn.Errorf(cairn.EUNAVAILABLE, "the embeddings endpoint failed (HTTP %d): %s", res.StatusCode, snippet(raw))
	case res.StatusCode < 200 || res.StatusCode > 299:
		return nil, -1, cairn.Errorf(cairn.EUNAVAILABLE, "the embeddings endpoint answered HTTP %d: %s", res.StatusCode, snippet(raw))
	}
	var resp response
	if err := json.Unmarshal(raw, &resp); err != nil {
		return nil, -1, malformed(err)
	}
	return &resp, 0, nil
}

// retryAfter reads a Retry-After header in seconds; 0 when absent or
// unreadable.
func retryAfter(h string) time.Duration {
	n, err := strconv.Atoi(strings.TrimSpace(h))
	if err != nil || n <= 0 {
		return 0
	}
	return time.Duration(n) * time.Second
}

func snippet(b []byte) string {
	return cut(strings.ToValidUTF8(strings.TrimSpace(string(b)), ""), 200)
}

// cut keeps the first max bytes of s, on a rune boundary.
func cut(s string, max int) string {
	return cairn.CutBytes(s, max)
}
