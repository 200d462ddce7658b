package recall_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/recall"
)

// Seed 000's candidates: a memory tagged with a keyword of the task is in
// the block without a word of the prompt in its text, as is a memory of
// the current hat; a memory tagged with no keyword, of another hat, is
// not.
func TestHatAndTaggedMemoriesAreCandidatesWithoutAWordOfThePrompt(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 10 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d about the release train", i)})
	}
	tagged := put(t, e, &cairn.Memory{Type: "pitfall", Content: "the session cookie is set only over TLS", Tags: []string{"login"}})
	ofHat := put(t, e, &cairn.Memory{Type: "pattern", Content: "every review names the risk it checked", Hat: "critic"})
	other := put(t, e, &cairn.Memory{Type: "pattern", Content: "plans list their open questions first", Hat: "planner", Tags: []string{"plans"}})
	ids := relevantIDs(selection(t, e, noLastingTiers(), cairn.ContextRequest{Prompt: "make the login page load faster", Hat: "critic"}))
	if !slices.Contains(ids, tagged.ID) || !slices.Contains(ids, ofHat.ID) {
		t.Errorf("relevant %v, want the memory tagged login (%s) and the critic's (%s)", ids, tagged.ID, ofHat.ID)
	}
	if slices.Contains(ids, other.ID) {
		t.Errorf("relevant %v holds the planner's untagged-for-this memory %s", ids, other.ID)
	}
	ids = relevantIDs(selection(t, e, noLastingTiers(), cairn.ContextRequest{Prompt: "make the home page load faster"}))
	if len(ids) != 0 {
		t.Errorf("no keyword tag, no hat: relevant %v, want nothing", ids)
	}
}

// Memories at or below context.min_confidence (0.3 by default) are not
// injected from any tier, pinned ones aside; the setting moves the line.
func TestMemoriesAtOrBelowTheConfidenceFloorAreNotInjected(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	weak := put(t, e, &cairn.Memory{Type: "pitfall", Content: "the payments webhook retries forever when the signing secret rotates", Confidence: 0.3})
	strong := put(t, e, &cairn.Memory{Type: "fix", Content: "rotate the payments webhook signing secret in both places at once", Confidence: 0.5})
	weakDecision := put(t, e, &cairn.Memory{Type: "decision", Content: "webhooks are signed with HMAC-SHA256", Confidence: 0.2})
	pinned := put(t, e, &cairn.Memory{Type: "preference", Content: "keep diffs small", Confidence: 0.1, Pinned: true})
	req := cairn.ContextRequest{Project: "p", Prompt: "why does the payments webhook retry forever when the secret rotates", Explain: true}
	b, err := recall.Build(t.Context(), e, config.Default(), req)
	if err != nil {
		t.Fatal(err)
	}
	ids := b.IDs()
	if slices.Contains(ids, weak.ID) || slices.Contains(ids, weakDecision.ID) {
		t.Errorf("block %v holds a memory at or below confidence 0.3", ids)
	}
	if !slices.Contains(ids, strong.ID) || !slices.Contains(ids, pinned.ID) {
		t.Errorf("block %v lacks the trusted match %s or the pinned %s", ids, strong.ID, pinned.ID)
	}
	if x := recall.Explain(b); !strings.Contains(x, "left out "+weak.ID+": confidence 0.30, at or below context.min_confidence 0.30") {
		t.Errorf("the explanation does not say why %s is out:\n%s", weak.ID, x)
	}
	c := noLastingTiers()
	c.Context.Static.Enabled = true
	c.Context.MinConfidence = 0
	b, err = recall.Build(t.Context(), e, c, req)
	if err != nil {
		t.Fatal(err)
	}
	if ids := b.IDs(); !slices.Contains(ids, weak.ID) {
		t.Errorf("min_confidence 0: block %v lacks %s", ids, weak.ID)
	}
}
