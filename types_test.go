package cairn_test

import (
	"slices"
	"testing"

	"github.com/cairn-dev/cairn"
)

// The facets are what retrieval reads instead of lists of type names: a
// type moved in or out of one changes what a block shows, so the sets
// are spelled out here.
func TestFacetsNameTheBuiltInTypes(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		facet cairn.Facet
		want  []string
	}{
		{cairn.FacetFix, []string{"fix", "error_solution"}},
		{cairn.FacetPitfall, []string{"pitfall", "gotcha"}},
		{cairn.FacetProblem, []string{"issue"}},
		{cairn.FacetAttempt, []string{"failure"}},
		{cairn.FacetRule, []string{"decision", "constraint"}},
		{cairn.FacetConvention, []string{"convention"}},
		{cairn.FacetPractice, []string{"architecture", "pattern", "convention", "dependency"}},
		{cairn.FacetPreference, []string{"global", "preference", "style", "user_preference"}},
		{cairn.FacetCritical, []string{"architecture", "constraint"}},
		{cairn.FacetRecord, []string{"session", "task_input", "task_result"}},
		{cairn.FacetEvent, []string{"fix", "failure", "issue", "session", "task_input", "task_result"}},
		{cairn.FacetSummary, []string{"session"}},
		{cairn.FacetLearning, []string{"learning"}},
		{cairn.FacetOutcome, []string{"task_result"}},
		{cairn.FacetIndexed, []string{"decision", "context", "issue", "preference", "task_input", "task_result"}},
	} {
		if got := cairn.TypesWith(c.facet); !slices.Equal(got, c.want) {
			t.Errorf("facet %b: %v, want %v", c.facet, got, c.want)
		}
	}
	if got := cairn.TypesWithAll(cairn.FacetFix | cairn.FacetEvent); !slices.Equal(got, []string{"fix"}) {
		t.Errorf("fix and event: %v, want [fix]", got)
	}
	if got := cairn.TypesWith(cairn.FacetRule | cairn.FacetConvention); !slices.Equal(got, []string{"decision", "convention", "constraint"}) {
		t.Errorf("rule or convention: %v", got)
	}
}

func TestFacetsOfAnUnknownTypeAreNone(t *testing.T) {
	t.Parallel()
	if f := cairn.FacetsOf("runbook"); f != 0 {
		t.Fatalf("FacetsOf(runbook) = %b, want none", f)
	}
	// A type the configuration adds gets the default policy, without facets.
	if f := cairn.DefaultTypes().Of("runbook").Facets; f != 0 {
		t.Fatalf("the default policy has facets %b", f)
	}
	if f := cairn.DefaultTypes().Of("fix").Facets; f != cairn.FacetFix|cairn.FacetEvent {
		t.Fatalf("the policy of fix has facets %b", f)
	}
}

func TestTypesOfTierFollowTheDefaultPolicies(t *testing.T) {
	t.Parallel()
	if got, want := cairn.TypesOfTier(cairn.TierStatic), []string{"constraint", "convention", "decision", "global", "preference", "style", "user_preference"}; !slices.Equal(got, want) {
		t.Fatalf("static: %v, want %v", got, want)
	}
	if got := cairn.TypesOfTier(cairn.TierDynamic); !slices.Equal(got, []string{"session"}) {
		t.Fatalf("dynamic: %v", got)
	}
}

func TestTypeOrderIsSeedOrderThenAlphabeticalAndAFreshCopy(t *testing.T) {
	t.Parallel()
	order := cairn.TypeOrder()
	want := []string{"architecture", "pattern", "pitfall", "gotcha", "decision", "fix", "error_solution", "convention"}
	if !slices.Equal(order[:len(want)], want) {
		t.Fatalf("TypeOrder starts %v, want %v", order[:len(want)], want)
	}
	if rest := order[len(want):]; !slices.IsSorted(rest) {
		t.Fatalf("the rest of TypeOrder is not alphabetical: %v", rest)
	}
	if len(order) != len(cairn.DefaultTypes()) {
		t.Fatalf("TypeOrder has %d types, DefaultTypes %d", len(order), len(cairn.DefaultTypes()))
	}
	order[0] = "changed"
	if cairn.TypeOrder()[0] != "architecture" {
		t.Fatal("TypeOrder shares its slice")
	}
	if cairn.CompareTypes("pitfall", "constraint") >= 0 || cairn.CompareTypes("zebra", "note") <= 0 || cairn.CompareTypes("runbook", "zebra") >= 0 {
		t.Fatal("CompareTypes does not follow TypeOrder, then the alphabet")
	}
}
