package client

import (
	"context"
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Lookup implements cairn.LookupService: the server answers req
// (req.Project is ignored) where the memories are and, when req.Record
// asks, records the use of what the answer shows; the answer comes back. req.Now, when set, is the request's clock. The
// answer's memories carry the fields of its JSON (wire.Lookup).
func (p *Project) Lookup(ctx context.Context, req cairn.LookupRequest) (*cairn.LookupAnswer, error) {
	pp := p
	if !req.Now.IsZero() {
		pp = p.At(req.Now)
	}
	in := wire.LookupIn{Kind: req.Kind, Profile: req.Profile, Subject: req.Subject, Budget: req.Budget, Limit: req.Limit,
		Command: req.Command, Session: req.Session, ShownTimes: req.ShownTimes, Exact: req.Exact, Record: req.Record}
	var out wire.Lookup
	if err := pp.do(ctx, http.MethodPost, p.path("/lookup"), in, &out); err != nil {
		return nil, err
	}
	return out.Answer(), nil
}
