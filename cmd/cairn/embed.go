package main

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/modelbudget"
)

// embedBudgetFile holds the embeddings endpoint's daily spend, next to the
// database (apart from extraction's model-budget.json: each has its own
// limits).
const embedBudgetFile = "embed-budget.json"

// embedPauseFile remembers, next to the database, that the embeddings
// endpoint failed, so that the processes after the one that found out
// rank lexically at once for the pause (embed.Config.PauseFile).
const embedPauseFile = "embed-pause.json"

// vectorOptions sets the engine options of the embeddings endpoint that c
// configures; it leaves them unset when none is.
func vectorOptions(m *Main, g *globals, c *config.Config, opts *engine.Options) error {
	ec := c.Embeddings.Resolve(m.Getenv)
	if !ec.Enabled() {
		return nil
	}
	key := ""
	if ec.APIKeyEnv != "" {
		key = strings.TrimSpace(m.Getenv(ec.APIKeyEnv))
	}
	client, err := embed.New(embed.Config{
		BaseURL: ec.BaseURL, Model: ec.Model, Dimensions: ec.Dimensions, APIKey: key, KeyName: ec.APIKeyEnv,
		Timeout: time.Duration(ec.TimeoutMS) * time.Millisecond, BatchSize: ec.BatchSize,
		MaxCallsPerDay: ec.MaxRequestsPerDay, MaxTokensPerDay: ec.MaxTokensPerDay,
		PauseFile: filepath.Join(filepath.Dir(g.path()), embedPauseFile),
	}, &modelbudget.FileBudget{Path: filepath.Join(filepath.Dir(g.path()), embedBudgetFile)}, nil, nil)
	if err != nil {
		return err
	}
	opts.Embedder = client
	opts.Vectors = engine.VectorSettings{
		Mode:            ec.Mode,
		QueryTimeout:    time.Duration(ec.QueryTimeoutMS) * time.Millisecond,
		PromptTimeout:   time.Duration(ec.PromptTimeoutMS) * time.Millisecond,
		SimilarityFloor: ec.SimilarityFloor,
	}
	return nil
}

// searchModeFlag checks a --mode or --search-mode value.
func searchModeFlag(cmd, flag, v string) error {
	switch v {
	case "", cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid:
		return nil
	}
	return usagef("%s: %s must be lexical, vector or hybrid, not %q", cmd, flag, v)
}

// runEmbed fills in missing vectors. It opens the database itself: the
// embeddings endpoint and its daily budget are this machine's
// configuration, and a running server embeds what is written every
// minute by itself (package jobs); a REST route for a client to start
// a fill is not offered.
func runEmbed(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "embed", "[--all] [--quiet]")
	all := fs.Bool("all", false, "embed the memories of every project, not only this one's")
	quiet := fs.Bool("quiet", false, "print no progress bar")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()
	if !s.eng.Vectors() {
		return usagef("embed: no embeddings endpoint is configured: set embeddings.base_url and embeddings.model (see docs/embeddings.md)")
	}
	project := g.project
	if *all {
		project = ""
	}
	var progress func(done, total int)
	if !*quiet && isTerminal(m.Stderr) {
		progress = func(done, total int) { fmt.Fprintf(m.Stderr, "\r%s", progressBar(done, total)) }
	}
	rep, err := s.eng.FillVectors(ctx, project, progress)
	if progress != nil && rep.Embedded > 0 {
		fmt.Fprintln(m.Stderr)
	}
	fmt.Fprintf(m.Stdout, "embedded %d contents with %s (%d requests, %d tokens); %d of %d memories had a vector before\n",
		rep.Embedded, rep.Model, rep.Calls, rep.Tokens, rep.Before, rep.Memories)
	if err != nil {
		return cairn.WrapError(cairn.ErrorCode(err), err, "embedding stopped; what was embedded is kept, and `cairn embed` resumes from there")
	}
	return nil
}

// progressBar draws done of total as "[=====     ]  50% 5/10".
func progressBar(done, total int) string {
	const width = 30
	total = max(total, 1)
	n := min(width, done*width/total)
	return fmt.Sprintf("[%s%s] %3d%% %d/%d", strings.Repeat("=", n), strings.Repeat(" ", width-n), done*100/total, done, total)
}

// vectorCount is the embedding coverage `cairn stats` shows.
type vectorCount struct {
	Model    string  `json:"model"`
	Memories int     `json:"memories"`
	Embedded int     `json:"embedded"`
	Percent  float64 `json:"percent"`
}

// vectorCoverage is the project's embedding coverage, nil without an
// endpoint.
func vectorCoverage(ctx context.Context, svc cairn.App, project string) (*vectorCount, error) {
	n, model, ok, err := svc.VectorCoverage(ctx, project)
	if err != nil || !ok {
		return nil, err
	}
	vc := &vectorCount{Model: model, Memories: n.Memories, Embedded: n.Embedded}
	if n.Memories > 0 {
		vc.Percent = math.Round(1000*float64(n.Embedded)/float64(n.Memories)) / 10
	}
	return vc, nil
}
