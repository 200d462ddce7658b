package engine_test

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

func TestContradictsPairs(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a, b string
		want bool
	}{
		{"Always use tabs for indentation in Go files", "Never use tabs for indentation in Go files", true},
		{"Response caching is enabled in production", "Response caching is disabled in production", true},
		{"The API returns dates in UTC", "The API does not return dates in UTC", true},
		{"Mocks are allowed in the storage tests", "Mocks are not allowed in the storage tests", true},
		{"Use tabs for indentation", "Avoid tabs for indentation", true},
		// Same polarity, or not the same subject.
		{"Do not disable caching in production", "Enable caching in production", false},
		{"Always use tabs for indentation", "Always use tabs for indentation in Go files", false},
		{"Never commit secrets to the repository", "Use tabs for indentation", false},
		{"Use tabs", "Use tabs, not spaces", false},
		{"The API does not return dates in UTC", "The billing API does not return amounts in cents, nor dates in UTC", false},
	}
	for _, tt := range tests {
		if got := engine.Contradicts(tt.a, tt.b); got != tt.want {
			t.Errorf("Contradicts(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.want)
		}
		if back := engine.Contradicts(tt.b, tt.a); back != tt.want {
			t.Errorf("not symmetric: %q / %q", tt.b, tt.a)
		}
	}
}

func TestANewMemoryThatContradictsAnOldOneIsLinkedToIt(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	old := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "convention", Content: "Always use tabs for indentation in Go files"}).Memory
	other := mustAdd(t, e, &cairn.Memory{Project: "q", Type: "convention", Content: "Never use tabs for indentation in Go files"}).Memory
	if len(other.ConflictsWith()) != 0 {
		t.Errorf("a memory of another project was linked: %v", other.Tags)
	}
	res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "decision", Content: "Never use tabs for indentation in Go files", Tags: []string{"style"}})
	if res.Status != cairn.StatusCreated || !slices.Equal(res.Memory.ConflictsWith(), []string{old.ID}) || !res.Memory.HasTag(cairn.TagConflict) || !res.Memory.HasTag("style") {
		t.Fatalf("new memory: %+v", res.Memory)
	}
	back, err := e.FindMemoryByID(t.Context(), old.ID)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(back.ConflictsWith(), []string{res.Memory.ID}) || back.Content != old.Content || back.UseCount != old.UseCount {
		t.Errorf("old memory after the link: %+v", back)
	}
	// Found by the tag, both of them.
	ms, _, err := e.FindMemories(t.Context(), cairn.MemoryFilter{Project: "p", Tags: []string{cairn.TagConflict}})
	if err != nil || len(ms) != 2 {
		t.Errorf("tagged: %d %v", len(ms), err)
	}
	// An agreeing memory and a superseded old one are not conflicts.
	agree := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "note", Content: "Response caching is enabled in production"}).Memory
	if len(agree.ConflictsWith()) != 0 {
		t.Errorf("unrelated memory linked: %v", agree.Tags)
	}
	stale := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "note", Content: "Request tracing is enabled in staging builds"}).Memory
	if _, err := e.UpdateMemory(t.Context(), stale.ID, cairn.MemoryUpdate{SupersededBy: &agree.ID}); err != nil {
		t.Fatal(err)
	}
	late := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "note", Content: "Request tracing is disabled in staging builds"}).Memory
	if len(late.ConflictsWith()) != 0 {
		t.Errorf("a superseded memory was taken for a conflict: %v", late.Tags)
	}
}

func TestTheSameKeyInAnotherTypeIsAConflict(t *testing.T) {
	t.Parallel()
	e, _ := nearDupEngine(t)
	old := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "orm", Content: "We use sqlc for queries"}).Memory
	res := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "pattern", Key: "orm", Content: "Queries go through GORM models"})
	if !slices.Equal(res.Memory.ConflictsWith(), []string{old.ID}) {
		t.Errorf("same key, other type: %v", res.Memory.Tags)
	}
	// The same type and key is an update, as before.
	up := mustAdd(t, e, &cairn.Memory{Project: "p", Type: "decision", Key: "orm", Content: "We use sqlc for all queries"})
	if up.Status != cairn.StatusUpdated {
		t.Errorf("same type and key: %s", up.Status)
	}
}
