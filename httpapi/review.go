package httpapi

import (
	"net/http"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Routes for a person reviewing a project (cairn conflicts, cairn recall
// without a lookup) and for the administration of tokens.

func (s *Server) conflicts(w http.ResponseWriter, r *http.Request, p *project) error {
	cs, err := p.svc.FindConflicts(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.ConflictsOut{Conflicts: wire.ConflictsOf(cs)})
	return nil
}

func (s *Server) recallByValue(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.RecallIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	ms, err := p.svc.RecallByValue(r.Context(), cairn.ValueRecall{Types: in.Types, Agent: in.Agent, Limit: in.Limit,
		Session: in.Session,
		// A read-only token's recall is a preview, as its lookups are.
		Record: in.Record && (p.token == nil || !p.token.ReadOnly)})
	if err != nil && ms != nil {
		// The memories are right; only the recording of their use failed.
		s.log.Error("recording the use of memories", "project", p.name, "err", err)
	} else if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.MemoriesOut{Memories: wire.MemoriesOf(ms)})
	return nil
}

// errTokensHere refuses the token routes on a listener other machines, or
// other users, may reach.
var errTokensHere = cairn.Errorf(cairn.EFORBIDDEN, "tokens are made, listed and revoked only by the database's owner: on the server's Unix socket, or with the database itself (cairn token on the server's machine), never over HTTP")

// tokenRoute registers h at METHOD /api/tokens...: answered only when
// Options.ManageTokens (the server's Unix socket).
func (s *Server) tokenRoute(pattern string, h func(w http.ResponseWriter, r *http.Request, svc cairn.TokenService) error) {
	s.mux.HandleFunc(pattern, func(w http.ResponseWriter, r *http.Request) {
		if !s.opts.ManageTokens {
			s.fail(w, r, errTokensHere)
			return
		}
		if err := h(w, r, s.opts.Service("", time.Time{})); err != nil {
			s.fail(w, r, err)
		}
	})
}

func (s *Server) createToken(w http.ResponseWriter, r *http.Request, svc cairn.TokenService) error {
	var in wire.TokenIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	secret, tok, err := svc.CreateToken(r.Context(), in.Project, in.Name, in.ReadOnly)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.NewToken{Token: wire.TokenOf(tok), Secret: secret})
	return nil
}

func (s *Server) listTokens(w http.ResponseWriter, r *http.Request, svc cairn.TokenService) error {
	toks, err := svc.FindTokens(r.Context())
	if err != nil {
		return err
	}
	out := wire.TokensOut{Tokens: make([]wire.Token, 0, len(toks))}
	for _, t := range toks {
		out.Tokens = append(out.Tokens, wire.TokenOf(t))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) revokeToken(w http.ResponseWriter, r *http.Request, svc cairn.TokenService) error {
	id := r.PathValue("id")
	if err := svc.RevokeToken(r.Context(), id); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, struct {
		Revoked string `json:"revoked"`
	}{id})
	return nil
}
