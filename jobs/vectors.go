package jobs

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/internal/testsignal"
)

// DefaultVectorFillEvery is how often a VectorFiller embeds what was
// written since.
const DefaultVectorFillEvery = time.Minute

// VectorFillerConfig tunes a VectorFiller; zero values take the defaults.
type VectorFillerConfig struct {
	Every time.Duration // how often Run embeds
	// Log receives a line for each round that embedded something or
	// failed; nil: none.
	Log io.Writer

	TestSignals VectorFillerTestSignals
}

// VectorFillerTestSignals tell a test what the filler did.
type VectorFillerTestSignals struct {
	// Ran gets the report of each round of Run.
	Ran testsignal.Signal[engine.FillReport]
}

// Init turns every signal on.
func (ts *VectorFillerTestSignals) Init() { ts.Ran.Init() }

// VectorFiller embeds the memories of every project that have no vector
// of the engine's model: writes never wait for an embeddings endpoint,
// they get their vectors here. What is done is the store's (the vectors
// themselves), so it keeps no job state.
type VectorFiller struct {
	eng *engine.Engine
	cfg VectorFillerConfig
}

// NewVectorFiller returns the filler of eng's store (cfg nil: defaults).
// eng must have an embeddings endpoint (Engine.Vectors).
func NewVectorFiller(eng *engine.Engine, cfg *VectorFillerConfig) *VectorFiller {
	var c VectorFillerConfig
	if cfg != nil {
		c = *cfg
	}
	c.Every = cmp.Or(c.Every, DefaultVectorFillEvery)
	if c.Log == nil {
		c.Log = io.Discard
	}
	return &VectorFiller{eng: eng, cfg: c}
}

// Run embeds now and then every Every, until ctx ends.
func (f *VectorFiller) Run(ctx context.Context) {
	every(ctx, 0, f.cfg.Every, func(ctx context.Context) {
		rep, err := f.runOnce(ctx)
		if ctx.Err() != nil {
			return
		}
		switch {
		case err != nil:
			fmt.Fprintf(f.cfg.Log, "cairn: embedding in the background stopped after %d contents: %s\n", rep.Embedded, oneLine(cairn.ErrorMessage(err)))
		case rep.Embedded > 0:
			fmt.Fprintf(f.cfg.Log, "cairn: embedded %d contents with %s in the background\n", rep.Embedded, rep.Model)
		}
		f.cfg.TestSignals.Ran.Signal(rep)
	})
}

// runOnce embeds every memory of every project that has no vector yet.
func (f *VectorFiller) runOnce(ctx context.Context) (engine.FillReport, error) {
	return f.eng.FillVectors(ctx, "", nil)
}
