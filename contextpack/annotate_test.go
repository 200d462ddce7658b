package contextpack_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/contextpack"
)

func TestAgesAndRelevanceAreShownWhereTheyFitAndNeverCostAnItem(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 6, 1, 12, 0, 0, 0, time.UTC)
	var items []contextpack.Item
	for i := range 6 {
		items = append(items, contextpack.Item{ID: fmt.Sprintf("mem-%d", i), Type: "pattern", Content: words(12) + fmt.Sprint(i),
			CreatedAt: now.Add(-time.Duration(i+1) * 50 * time.Hour), Value: 1, Relevance: 0.871})
	}
	req := contextpack.Request{Sections: []contextpack.Section{{Kind: "relevant", Items: items}}, Budget: 1000, Now: now}
	roomy := contextpack.Render(req)
	for _, want := range []string{"(id mem-0, 2026-05-30, 2 days ago, 87% relevant)", "(id mem-5, 2026-05-20, 12 days ago, 87% relevant)"} {
		if !strings.Contains(roomy.Text, want) {
			t.Errorf("the block lacks %q:\n%s", want, roomy.Text)
		}
	}
	// A budget that holds the items only without the annotations: the
	// same items, without them.
	plainReq := req
	plainReq.Now = time.Time{}
	plain := contextpack.Render(plainReq)
	req.Budget, plainReq.Budget = plain.Tokens, plain.Tokens
	tight := contextpack.Render(req)
	if !slices.Equal(placedIDs(tight), placedIDs(contextpack.Render(plainReq))) || strings.Contains(tight.Text, "ago") {
		t.Errorf("tight budget: placed %v, text:\n%s", placedIDs(tight), tight.Text)
	}
	// XML and JSON are not annotated.
	for _, f := range []string{contextpack.FormatXML, contextpack.FormatJSON} {
		r := req
		r.Format, r.Budget = f, 1000
		if strings.Contains(contextpack.Render(r).Text, "days ago") {
			t.Errorf("%s was annotated", f)
		}
	}
}
