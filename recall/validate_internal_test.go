package recall

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

// The root's check of a context request (ContextRequest.Validate) is the
// one a block is built after, and a command runs before it opens the
// database: it refuses an unknown format or mode and a negative budget,
// limit or cap, as EINVALID, and passes the rest; of the profiles, it
// passes those this package builds blocks for (profileOf) and refuses the
// others: every profile, an unknown one.
func TestValidateAgreesWithTheProfilesAndRefusesBadRequests(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		req cairn.ContextRequest
		ok  bool
	}{
		{cairn.ContextRequest{Format: "html"}, false},
		{cairn.ContextRequest{Mode: "turbo"}, false},
		{cairn.ContextRequest{Budget: -1, BudgetSet: true}, false},
		{cairn.ContextRequest{Limit: -1, LimitSet: true}, false},
		{cairn.ContextRequest{MaxChars: -1, MaxCharsSet: true}, false},
		{cairn.ContextRequest{Mode: "eco"}, true},
		{cairn.ContextRequest{Budget: 0, BudgetSet: true}, true},
	} {
		err := c.req.Validate(cairn.DefaultSettings())
		if (err == nil) != c.ok || err != nil && cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%+v: Validate %v, want ok %v (EINVALID otherwise)", c.req, err, c.ok)
		}
	}
	for _, f := range cairn.ContextFormats {
		if err := (&cairn.ContextRequest{Format: f}).Validate(cairn.DefaultSettings()); err != nil {
			t.Errorf("format %s: %v", f, err)
		}
	}
	reqs := []cairn.ContextRequest{{Profile: "nonesuch"}}
	for name := range Profiles() {
		reqs = append(reqs, cairn.ContextRequest{Profile: name})
	}
	for _, req := range reqs {
		verr := req.Validate(cairn.DefaultSettings())
		_, perr := profileOf(&req)
		if (verr == nil) != (perr == nil) {
			t.Errorf("profile %q: Validate %v, profileOf %v", req.Profile, verr, perr)
		}
	}
}

// A block is refused for what Validate refuses, as EINVALID once a
// transport speaks (AsInvalid), with Validate's words.
func TestBuildRefusesWhatValidateRefuses(t *testing.T) {
	t.Parallel()
	req := cairn.ContextRequest{Format: "html"}
	_, err := Build(t.Context(), nil, cairn.DefaultSettings(), req)
	want := req.Validate(cairn.DefaultSettings())
	if err == nil || cairn.ErrorCode(AsInvalid(err)) != cairn.EINVALID || cairn.ErrorMessage(AsInvalid(err)) != cairn.ErrorMessage(want) {
		t.Fatalf("Build: %v, want %v", err, want)
	}
}
