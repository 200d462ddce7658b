package capture_test

import (
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/capture"
)

func TestHatTransitionsExtractWhatSeed000Keeps(t *testing.T) {
	t.Parallel()
	explorer := "## Findings\n- The API layer lives in internal/http and calls the store through the service package.\n" +
		"- Payments depend on stripe-go v76.2.0 for the client.\n- I looked at the tests.\n```\nfunc main() { service() }\n```\n"
	got, err := capture.HatTransition("explorer:planner", explorer)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Type != "architecture" || got[1].Type != "dependency" || !strings.Contains(got[1].Content, "stripe-go") ||
		got[0].Line != 2 || got[0].Tags[1] != "explorer-to-planner" {
		t.Errorf("explorer:planner: %+v", got)
	}
	planner := "Plan:\n1. We will use sqlc for the queries instead of an ORM.\n2. The migration must not lock the orders table.\n3. Write it."
	got, err = capture.HatTransition("Planner:Creator", planner)
	if err != nil {
		t.Fatal(err)
	}
	if len(got) != 2 || got[0].Type != "decision" || got[1].Type != "constraint" {
		t.Errorf("planner:creator: %+v", got)
	}
	m := got[0].Memory("p")
	if m.Source != "automatic" || m.Type != "decision" {
		t.Errorf("memory: %+v", m)
	}
	// Bad input tried: a transition seed 000 has no extraction for.
	if _, err := capture.HatTransition("creator:critic", planner); err == nil || !strings.Contains(err.Error(), "explorer:planner") {
		t.Errorf("unknown transition: %v", err)
	}
}
