package transcript

import "testing"

// Pending is empty when nothing waits, and RestorePending refuses a text
// it cannot read without changing the extractor.
func TestPendingStateRoundTripAndBadText(t *testing.T) {
	x := NewExtractor("p")
	if p := x.Pending(); p != "" {
		t.Errorf("fresh extractor: pending %q", p)
	}
	x.failing["go test ./..."] = &failure{output: "FAIL", files: []string{"a.go"}}
	x.uses["toolu_9"] = "go vet ./..."
	y := NewExtractor("p")
	if err := y.RestorePending(x.Pending()); err != nil {
		t.Fatal(err)
	}
	if f := y.failing["go test ./..."]; f == nil || f.output != "FAIL" || len(f.files) != 1 || y.uses["toolu_9"] != "go vet ./..." {
		t.Errorf("restored %+v %v", y.failing, y.uses)
	}
	z := NewExtractor("p")
	if err := z.RestorePending(`{"failing": [1]`); err == nil || len(z.failing) != 0 {
		t.Errorf("malformed pending: %v, %v", err, z.failing)
	}
}
