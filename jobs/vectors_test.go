package jobs

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/embed/embedtest"
	"github.com/cairn-dev/cairn/engine"
)

func vectorEngine(t *testing.T) (*engine.Engine, *embedtest.Server) {
	t.Helper()
	srv := embedtest.NewServer(t, nil)
	client, err := embed.New(embed.Config{BaseURL: srv.URL(), Model: "test-embed", BatchSize: 2, Retries: -1}, nil, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, base, c := openDB(t)
	return engine.New(base.Store(), &engine.Options{Now: c.Now, Embedder: client}), srv
}

// The filler embeds what every project wrote without a vector, once: a
// second round asks the endpoint nothing. An endpoint that fails is said
// in the log, and what it did not embed is embedded at a later round.
func TestVectorFillerEmbedsEveryProjectsNewMemoriesOnce(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	e, srv := vectorEngine(t)
	for _, m := range []*cairn.Memory{
		{Project: "a", Content: "Releases are published by tagging main."},
		{Project: "a", Content: "Persistence goes through the sqlite package."},
		{Project: "b", Content: "The new parser mishandles nested blocks."},
	} {
		add(t, e, m)
	}
	f := NewVectorFiller(e, nil)
	rep, err := f.runOnce(ctx)
	if err != nil || rep.Embedded != 3 {
		t.Fatalf("first round: %+v %v", rep, err)
	}
	asked := len(srv.Requests())
	if rep, err := f.runOnce(ctx); err != nil || rep.Embedded != 0 || len(srv.Requests()) != asked {
		t.Fatalf("second round: %+v %v, %d requests (was %d)", rep, err, len(srv.Requests()), asked)
	}

	add(t, e, &cairn.Memory{Project: "b", Content: "Golden files are regenerated with the update flag."})
	srv.FailNext(http.StatusInternalServerError)
	var log syncBuffer
	cfg := &VectorFillerConfig{Every: 5 * time.Millisecond, Log: &log}
	cfg.TestSignals.Init()
	run := NewVectorFiller(e, cfg)
	rctx, cancel := context.WithCancel(ctx)
	done := make(chan struct{})
	go func() { run.Run(rctx); close(done) }()
	defer func() { cancel(); <-done }()
	first := cfg.TestSignals.Ran.Wait(t)
	if first.Embedded != 0 || !strings.Contains(log.String(), "embedding in the background stopped after 0 contents") {
		t.Fatalf("a failing endpoint: %+v, log %q", first, log.String())
	}
	for rep := cfg.TestSignals.Ran.Wait(t); rep.Embedded != 1; rep = cfg.TestSignals.Ran.Wait(t) {
	}
	if !strings.Contains(log.String(), "embedded 1 contents with test-embed in the background") {
		t.Errorf("log %q", log.String())
	}
}
