package embed

import (
	"context"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/embed/embedtest"
	"github.com/cairn-dev/cairn/modelbudget"
)

// newClient returns a client of srv whose backoff sleeps are recorded, not
// slept.
func newClient(t *testing.T, srv *embedtest.Server, cfg Config, b modelbudget.Budget) (*Client, *[]time.Duration) {
	t.Helper()
	cfg.BaseURL = srv.URL()
	if cfg.Model == "" {
		cfg.Model = "test-embed"
	}
	c, err := New(cfg, b, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var slept []time.Duration
	c.sleep = func(ctx context.Context, d time.Duration) error { slept = append(slept, d); return ctx.Err() }
	return c, &slept
}

func cosine(a, b []float32) float64 {
	var d, na, nb float64
	for i := range a {
		d += float64(a[i]) * float64(b[i])
		na += float64(a[i]) * float64(a[i])
		nb += float64(b[i]) * float64(b[i])
	}
	return d / math.Sqrt(na*nb)
}

func TestEmbedSendsBatchesAndPlacesVectorsByIndex(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	c, _ := newClient(t, srv, Config{BatchSize: 2, APIKey: "sk-test", Dimensions: 32}, nil)
	texts := []string{"alpha one", "beta two", "gamma three", "delta four", "epsilon five"}
	vs, u, err := c.Embed(t.Context(), texts)
	if err != nil {
		t.Fatal(err)
	}
	reqs := srv.Requests()
	if len(reqs) != 3 || len(reqs[0].Input) != 2 || len(reqs[2].Input) != 1 {
		t.Fatalf("requests: %+v", reqs)
	}
	if reqs[0].Auth != "Bearer sk-test" || reqs[0].Dimensions != 32 || reqs[0].Model != "test-embed" {
		t.Errorf("first request: %+v", reqs[0])
	}
	if len(vs) != 5 || u.Calls != 3 || u.Tokens != 10 {
		t.Fatalf("%d vectors, usage %+v", len(vs), u)
	}
	for i, text := range texts {
		want := embedtest.Vector(text, nil, 32)
		if cosine(vs[i], want) < 0.9999 {
			t.Errorf("vector %d is not the one of %q", i, text)
		}
	}
}

func TestEmbedRetriesFailuresThatMayPassWithBackoff(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	b := &modelbudget.MemBudget{}
	c, slept := newClient(t, srv, Config{}, b)
	srv.FailNext(500, 429)
	vs, u, err := c.Embed(t.Context(), []string{"hello"})
	if err != nil || len(vs) != 1 {
		t.Fatalf("%v %d", err, len(vs))
	}
	if u.Calls != 3 || len(*slept) != 2 || (*slept)[1] <= (*slept)[0] {
		t.Errorf("calls %d, backoffs %v", u.Calls, *slept)
	}
	if calls, _, _ := b.Spent(modelbudget.Day(time.Now())); calls != 3 {
		t.Errorf("the budget counted %d calls, want 3 (failed ones count)", calls)
	}
	// More failures than retries: the last error is returned.
	srv.FailNext(503, 503, 503)
	if _, _, err := c.Embed(t.Context(), []string{"hello"}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "503") {
		t.Errorf("after three 503s: %v", err)
	}
}

func TestEmbedDoesNotRetryARefusedKeyOrABadRequest(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	c, slept := newClient(t, srv, Config{KeyName: "OPENAI_API_KEY", APIKey: "secret-key-value"}, nil)
	srv.FailNext(401)
	_, u, err := c.Embed(t.Context(), []string{"hello"})
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "OPENAI_API_KEY") || u.Calls != 1 || len(*slept) != 0 {
		t.Fatalf("401: %v, calls %d, slept %v", err, u.Calls, *slept)
	}
	if strings.Contains(err.Error(), "secret-key-value") {
		t.Errorf("the key is in the error: %v", err)
	}
	srv.OnlyModel("other")
	if _, u, err := c.Embed(t.Context(), []string{"hello"}); err == nil || u.Calls != 1 || !strings.Contains(err.Error(), "404") {
		t.Errorf("unknown model: %v, calls %d", err, u.Calls)
	}
}

// Bad answers tried: not JSON, JSON of another shape, too few vectors, a
// repeated index, vectors of different lengths, the wrong dimensions, an
// empty vector.
func TestEmbedRejectsMalformedAnswers(t *testing.T) {
	t.Parallel()
	cases := map[string]string{
		"not json":         `<html>gateway</html>`,
		"cut off":          `{"data": [{"index": 0, "embedding": [0.1, `,
		"other shape":      `{"data": {"embedding": [1]}}`,
		"too few":          `{"data": [{"index": 0, "embedding": [1, 0]}]}`,
		"repeated index":   `{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 0, "embedding": [0, 1]}]}`,
		"ragged":           `{"data": [{"index": 0, "embedding": [1, 0]}, {"index": 1, "embedding": [0, 1, 0]}]}`,
		"empty vector":     `{"data": [{"index": 0, "embedding": []}, {"index": 1, "embedding": []}]}`,
		"strings not nums": `{"data": [{"index": 0, "embedding": ["a"]}, {"index": 1, "embedding": ["b"]}]}`,
	}
	for name, body := range cases {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			srv := embedtest.NewServer(t, nil)
			c, slept := newClient(t, srv, Config{}, nil)
			srv.AnswerRaw(body)
			vs, _, err := c.Embed(t.Context(), []string{"one", "two"})
			if cairn.ErrorCode(err) != cairn.EINVALID || vs != nil || len(*slept) != 0 {
				t.Errorf("%s: %v, %d vectors, retried %d times", body, err, len(vs), len(*slept))
			}
		})
	}
	srv := embedtest.NewServer(t, nil)
	c, _ := newClient(t, srv, Config{Dimensions: 8}, nil)
	srv.AnswerRaw(`{"data": [{"index": 0, "embedding": [1, 0]}]}`)
	if _, _, err := c.Embed(t.Context(), []string{"one"}); cairn.ErrorCode(err) != cairn.EINVALID || !strings.Contains(err.Error(), "embeddings.dimensions") {
		t.Errorf("wrong dimensions: %v", err)
	}
}

func TestEmbedStopsAtTheDailyLimitsBeforeSending(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	b := &modelbudget.MemBudget{}
	c, _ := newClient(t, srv, Config{MaxCallsPerDay: 2, MaxTokensPerDay: 1000}, b)
	for i := 0; i < 2; i++ {
		if _, _, err := c.Embed(t.Context(), []string{"some words here"}); err != nil {
			t.Fatal(err)
		}
	}
	_, u, err := c.Embed(t.Context(), []string{"more"})
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "embeddings.max_requests_per_day") || u.Calls != 0 {
		t.Fatalf("over the call limit: %v, calls %d", err, u.Calls)
	}
	if n := len(srv.Requests()); n != 2 {
		t.Errorf("the server got %d requests, want 2", n)
	}
	tb := &modelbudget.MemBudget{}
	tb.Add(modelbudget.Day(time.Now()), 0, 50)
	c2, _ := newClient(t, srv, Config{MaxTokensPerDay: 50}, tb)
	if _, _, err := c2.Embed(t.Context(), []string{"x"}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "token limit") {
		t.Errorf("over the token limit: %v", err)
	}
}

func TestEmbedGivesUpAtItsTimeout(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	srv.SetDelay(2 * time.Second)
	c, _ := newClient(t, srv, Config{Timeout: 50 * time.Millisecond, Retries: -1}, nil)
	start := time.Now()
	_, _, err := c.Embed(t.Context(), []string{"slow"})
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || time.Since(start) > time.Second {
		t.Errorf("%v after %s", err, time.Since(start))
	}
	// A caller's shorter deadline wins, and no retry follows it.
	c2, slept := newClient(t, srv, Config{}, nil)
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Millisecond)
	defer cancel()
	if _, _, err := c2.Embed(ctx, []string{"slow"}); err == nil || len(*slept) != 0 {
		t.Errorf("deadline: %v, slept %v", err, *slept)
	}
}

func TestEmbedRefusesNoTextsAnEmptyTextAndAnUnreachableEndpoint(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	c, _ := newClient(t, srv, Config{}, nil)
	if _, _, err := c.Embed(t.Context(), nil); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("no texts: %v", err)
	}
	if _, _, err := c.Embed(t.Context(), []string{"ok", "  "}); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("empty text: %v", err)
	}
	if _, err := New(Config{BaseURL: "localhost:11434", Model: "m"}, nil, nil, nil); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("no scheme: %v", err)
	}
	if _, err := New(Config{BaseURL: "http://x"}, nil, nil, nil); cairn.ErrorCode(err) != cairn.EINVALID {
		t.Errorf("no model: %v", err)
	}
	dead, err := New(Config{BaseURL: "http://127.0.0.1:1/v1", Model: "m", Retries: -1}, nil, &http.Client{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := dead.Embed(t.Context(), []string{"x"}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE {
		t.Errorf("unreachable: %v", err)
	}
}

func TestTestServerVectorsShareMeaningNotWords(t *testing.T) {
	t.Parallel()
	concepts := map[string]string{"car": "vehicle", "automobile": "vehicle"}
	a := embedtest.Vector("the car", concepts, 64)
	b := embedtest.Vector("an automobile", concepts, 64)
	x := embedtest.Vector("banana bread", concepts, 64)
	if cosine(a, b) < 0.99 || math.Abs(cosine(a, x)) > 0.5 {
		t.Errorf("same concept %.3f, unrelated %.3f", cosine(a, b), cosine(a, x))
	}
}

func TestAFailureIsRememberedAcrossClientsForThePause(t *testing.T) {
	t.Parallel()
	srv := embedtest.NewServer(t, nil)
	pause := filepath.Join(t.TempDir(), "embed-pause.json")
	now := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	mk := func() *Client {
		c, err := New(Config{BaseURL: srv.URL(), Model: "test-embed", Retries: -1, PauseFile: pause, Pause: 30 * time.Second}, nil, nil, clock)
		if err != nil {
			t.Fatal(err)
		}
		return c
	}
	srv.FailNext(http.StatusServiceUnavailable)
	if _, _, err := mk().Embed(t.Context(), []string{"x"}); cairn.ErrorCode(err) != cairn.EUNAVAILABLE {
		t.Fatalf("first failure: %v", err)
	}
	sent := len(srv.Requests())
	// Another client, as another process would be: it does not ask.
	_, _, err := mk().Embed(t.Context(), []string{"x"})
	if cairn.ErrorCode(err) != cairn.EUNAVAILABLE || !strings.Contains(err.Error(), "not asked again for 30s") {
		t.Fatalf("second client: %v", err)
	}
	if len(srv.Requests()) != sent {
		t.Fatalf("the paused endpoint was asked again")
	}
	// Another model of the same server is not paused.
	other, _ := New(Config{BaseURL: srv.URL(), Model: "other-model", PauseFile: pause}, nil, nil, clock)
	if _, _, err := other.Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatalf("another model: %v", err)
	}
	// After the pause it is asked again, and a success clears the record.
	now = now.Add(31 * time.Second)
	if _, _, err := mk().Embed(t.Context(), []string{"x"}); err != nil {
		t.Fatalf("after the pause: %v", err)
	}
	if _, err := os.Stat(pause); !os.IsNotExist(err) {
		t.Errorf("a success left the pause file: %v", err)
	}
	// A caller's own deadline or cancellation records nothing.
	short, cancelShort := context.WithTimeout(t.Context(), time.Nanosecond)
	defer cancelShort()
	<-short.Done()
	mk().Embed(short, []string{"x"})
	if _, err := os.Stat(pause); !os.IsNotExist(err) {
		t.Errorf("a caller's deadline paused the endpoint: %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	mk().Embed(ctx, []string{"x"})
	if _, err := os.Stat(pause); !os.IsNotExist(err) {
		t.Errorf("a cancelled call paused the endpoint: %v", err)
	}
}
