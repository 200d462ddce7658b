package engine_test

import (
	"math"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

func TestNearDuplicateSimilarityPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b  string
		match bool
	}{
		{"Tests use table-driven subtests with t.Run.", "Tests use table driven subtests with t.Run", true},
		{"Tests use table-driven subtests with t.Run.", "tests use TABLE-DRIVEN subtests, with t.Run!", true},
		{"Always close the database connection after use.", "Always close the databse connection after use.", true},
		{"Always close the database connection after use.", "Always close the datbaase connection after use", true},
		{"Run the migrations before starting the server.", "Run the migration before starting the servers", true},
		{"Use t.TempDir() for test databases.", "Use t.TempDir() for temporary files.", false},
		{"Run go vet before committing.", "Run go vet before committing, and fix every warning it reports.", false},
		{"Use Go 1.21 for the build.", "Use Go 1.22 for the build.", false},
		{"Do use mocks for the payment client.", "Don't use mocks for the payment client.", false},
		{"Mocks are allowed in the storage tests.", "Mocks are not allowed in the storage tests.", false},
		{"Use test fixtures from testdata.", "Use text fixtures from testdata.", false}, // short words: no typo tolerance
	}
	for _, tt := range tests {
		t.Run(tt.a+"|"+tt.b, func(t *testing.T) {
			sim := engine.NearDuplicateSimilarity(tt.a, tt.b)
			if got := sim >= engine.NearDuplicateThreshold; got != tt.match {
				t.Errorf("similarity %.3f, near duplicate %v; want %v", sim, got, tt.match)
			}
			if back := engine.NearDuplicateSimilarity(tt.b, tt.a); math.Abs(back-sim) > 1e-9 {
				t.Errorf("not symmetric: %.3f and %.3f", sim, back)
			}
		})
	}
}

func nearDupEngine(t *testing.T) (*engine.Engine, *clock) {
	c := &clock{t: time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)}
	return engine.New(newStore(t), &engine.Options{Now: c.Now}), c
}

func mustAdd(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.WriteResult {
	t.Helper()
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatalf("AddMemory(%.40q): %v", m.Content, err)
	}
	return res
}

func TestNearDuplicateReinforces(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	first := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "convention", Content: "Tests use table-driven subtests with t.Run.", Tags: []string{"go"}}).Memory
	mustAdd(t, e, &cairn.Memory{Project: "p", Type: "convention", Content: "Use t.TempDir() for test databases."})
	res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "convention", Content: "Tests use table driven subtests with t.Run", Tags: []string{"testing"}})
	if res.Status != cairn.StatusReinforced || res.Memory.ID != first.ID {
		t.Fatalf("near duplicate: %s %s, want %s reinforced", res.Status, res.Memory.ID, first.ID)
	}
	got, err := e.FindMemoryByID(t.Context(), first.ID)
	if err != nil {
		t.Fatal(err)
	}
	if got.UseCount != first.UseCount+1 || math.Abs(got.Confidence-(first.Confidence+cairn.UsageBoost)) > 1e-9 {
		t.Errorf("use_count %d confidence %v; want %d, %v", got.UseCount, got.Confidence, first.UseCount+1, first.Confidence+cairn.UsageBoost)
	}
	if got.Content != first.Content {
		t.Errorf("content %q, want the stored %q kept", got.Content, first.Content)
	}
	if len(got.Tags) != 2 {
		t.Errorf("tags %v, want go and testing", got.Tags)
	}
	if res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "convention", Content: "Use t.TempDir() for temporary files."}); res.Status != cairn.StatusCreated {
		t.Errorf("different text: %s, want created", res.Status)
	}
}

func TestNearDuplicateOnlyFoldsLiveSameTypeSameProject(t *testing.T) {
	t.Parallel()
	const text, variant = "Never log the raw request body in handlers.", "never log the raw request-body in handlers"
	t.Run("other type", func(t *testing.T) {
		t.Parallel()
		e, _ := nearDupEngine(t)
		mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: text})
		if res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "decision", Content: variant}); res.Status != cairn.StatusCreated {
			t.Errorf("other type: %s, want created", res.Status)
		}
	})
	t.Run("keyed", func(t *testing.T) {
		t.Parallel()
		e, _ := nearDupEngine(t)
		mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: text})
		if res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Key: "logging", Content: variant}); res.Status != cairn.StatusCreated {
			t.Errorf("keyed: %s, want created", res.Status)
		}
	})
	t.Run("other project", func(t *testing.T) {
		t.Parallel()
		e, _ := nearDupEngine(t)
		mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: text})
		res := mustAdd(t, e, &cairn.Memory{Project: "q", Type: "pitfall", Content: variant})
		if res.Status != cairn.StatusCreated || res.Memory.Project != "q" {
			t.Errorf("other project: %s in %q, want created in q", res.Status, res.Memory.Project)
		}
	})
	t.Run("global of other project", func(t *testing.T) {
		t.Parallel()
		e, _ := nearDupEngine(t)
		mustAdd(t, e, &cairn.Memory{Project: "p", Scope: cairn.ScopeGlobal, Type: "pitfall", Content: text})
		res := mustAdd(t, e, &cairn.Memory{Project: "q", Scope: cairn.ScopeGlobal, Type: "pitfall", Content: variant})
		if res.Status != cairn.StatusCreated || res.Memory.Project != "q" {
			t.Errorf("global of other project: %s in %q, want created in q", res.Status, res.Memory.Project)
		}
	})
	t.Run("expired", func(t *testing.T) {
		t.Parallel()
		e, c := nearDupEngine(t)
		mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: text, ExpiresAt: c.Now().Add(time.Hour)})
		c.Advance(2 * time.Hour)
		if res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: variant}); res.Status != cairn.StatusCreated {
			t.Errorf("expired candidate: %s, want created", res.Status)
		}
	})
	t.Run("superseded", func(t *testing.T) {
		t.Parallel()
		e, _ := nearDupEngine(t)
		old := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: text}).Memory
		if _, _, err := e.AddSuperseding(t.Context(), &cairn.Memory{Project: "p", Type: "pitfall", Content: "Log only the request id in handlers."}, old.ID); err != nil {
			t.Fatal(err)
		}
		if res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pitfall", Content: variant}); res.Status != cairn.StatusCreated {
			t.Errorf("superseded candidate: %s, want created", res.Status)
		}
	})
}

// A supersede replaces on purpose: a corrected near-identical text is a new
// memory, not a reinforcement of the one it replaces.
func TestSupersedeWithNearDuplicateText(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	old := mustAdd(t, e, &cairn.Memory{Project: "p", Content: "Always close the databse connection after use."}).Memory
	res, _, err := e.AddSuperseding(t.Context(), &cairn.Memory{Project: "p", Content: "Always close the database connection after use."}, old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != cairn.StatusCreated || res.Memory.ID == old.ID {
		t.Errorf("supersede: %s %s, want a new memory", res.Status, res.Memory.ID)
	}
}

// Bulk import dedups exact content only.
func TestImportSkipsNearDuplicates(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	mustAdd(t, e, &cairn.Memory{Project: "p", Content: "Tests use table-driven subtests with t.Run."})
	rep, err := e.Import(t.Context(), func(yield func(cairn.ImportRecord) bool) {
		yield(cairn.ImportRecord{Memory: &cairn.Memory{Project: "p", Content: "Tests use table driven subtests with t.Run"}})
	}, cairn.ImportOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rep.Created != 1 {
		t.Errorf("import report %+v, want one created", rep)
	}
}
