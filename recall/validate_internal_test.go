package recall

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

// The root's check of a context request (ContextRequest.Validate, run by
// a command before it opens the database) refuses what configure, which
// builds the block, refuses, and passes what it passes: every profile,
// an unknown one, each format and a negative budget, limit or cap.
func TestValidateAgreesWithConfigure(t *testing.T) {
	t.Parallel()
	reqs := []cairn.ContextRequest{{Profile: "nonesuch"}, {Format: "html"}, {Mode: "turbo"}, {Mode: "eco"},
		{Budget: -1, BudgetSet: true}, {Limit: -1, LimitSet: true}, {MaxChars: -1, MaxCharsSet: true}, {Budget: 0, BudgetSet: true}}
	for name := range Profiles() {
		reqs = append(reqs, cairn.ContextRequest{Profile: name})
	}
	for _, f := range cairn.ContextFormats {
		reqs = append(reqs, cairn.ContextRequest{Format: f})
	}
	for _, req := range reqs {
		verr := req.Validate(cairn.DefaultSettings())
		var cerr error
		if p, err := profileOf(&req); err != nil {
			cerr = err
		} else {
			_, _, cerr = configure(cairn.DefaultSettings(), &req, p)
		}
		if (verr == nil) != (cerr == nil) {
			t.Errorf("%+v: Validate %v, Configure %v", req, verr, cerr)
		}
		if verr != nil && cairn.ErrorCode(verr) != cairn.EINVALID {
			t.Errorf("%+v: Validate %v, want EINVALID", req, verr)
		}
	}
}
