package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func (s *Server) lookup(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.LookupIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	a, err := p.svc.Lookup(r.Context(), cairn.LookupRequest{Project: p.name, Kind: in.Kind, Profile: in.Profile,
		Subject: in.Subject, Budget: in.Budget, Limit: in.Limit, Now: p.now,
		Command: in.Command, Session: in.Session, ShownTimes: in.ShownTimes, Exact: in.Exact,
		// A read-only token's answers are previews: their use is not
		// recorded, as its context blocks' are not.
		Record: in.Record && (p.token == nil || !p.token.ReadOnly)})
	if err != nil && a != nil {
		// The answer is right; only its bookkeeping failed.
		s.log.Error("recording the use of memories", "project", p.name, "err", err)
	} else if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.LookupOf(a))
	return nil
}
