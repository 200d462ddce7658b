package httpapi

import (
	"errors"
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/wire"
)

// Routes that read for an agent: search and context; and capture, which
// stores what an agent's output signals.

func (s *Server) search(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	text := q.str("q")
	qr := cairn.Query{
		Project: p.name, Text: text, Limit: q.integer("limit", cairn.DefaultLimit, 1, cairn.MaxLimit),
		Types: q.types("type"), Tags: q.list("tag"), After: q.time("after"), Before: q.time("before"),
		ExcludeSession: q.str("exclude_session"), NoGlobal: q.flag("no_global", false),
	}
	explain := q.flag("explain", false)
	if q.err != nil {
		return q.err
	}
	if text == "" {
		return cairn.Errorf(cairn.EINVALID, "give the words to look for: ?q=WORDS")
	}
	hits, err := p.svc.Search(r.Context(), qr)
	if err != nil {
		return err
	}
	out := make([]wire.Hit, 0, len(hits))
	for _, h := range hits {
		out = append(out, wire.FromHit(h, explain))
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// contextIn is the body of POST /context.
type contextIn struct {
	Prompt   string   `json:"prompt"`
	Files    []string `json:"files"`
	Hat      string   `json:"hat"`
	Agent    string   `json:"agent"`
	Task     string   `json:"task"`
	Session  string   `json:"session"`
	Budget   *int     `json:"budget"`
	Limit    *int     `json:"limit"`
	MaxChars *int     `json:"max_chars"`
	Format   string   `json:"format"`
	Mode     string   `json:"mode"`
	DryRun   bool     `json:"dry_run"`
}

// contextOut is the block and the ids of the memories it shows, in block
// order.
type contextOut struct {
	Block  string   `json:"block"`
	IDs    []string `json:"ids"`
	Tokens int      `json:"tokens"`
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, p *project) error {
	var in contextIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if s.opts.Context == nil {
		return cairn.Errorf(cairn.EUNAVAILABLE, "this server does not build context blocks")
	}
	req := recall.Request{Project: p.name, Prompt: in.Prompt, Files: in.Files, Hat: in.Hat, Agent: in.Agent,
		Task: in.Task, Session: in.Session, Format: in.Format, Mode: in.Mode}
	if in.Budget != nil {
		req.Budget, req.BudgetSet = *in.Budget, true
	}
	if in.Limit != nil {
		req.Limit, req.LimitSet = *in.Limit, true
	}
	if in.MaxChars != nil {
		req.MaxChars, req.MaxCharsSet = *in.MaxChars, true
	}
	b, err := s.opts.Context(r.Context(), req)
	var ie *recall.InvalidError
	if errors.As(err, &ie) {
		err = cairn.Errorf(cairn.EINVALID, "%s", ie.Msg)
	}
	if err != nil {
		return err
	}
	out := contextOut{Block: b.Text, IDs: b.IDs(), Tokens: b.Result.Tokens}
	if out.IDs == nil {
		out.IDs = []string{}
	}
	if !in.DryRun && len(out.IDs) > 0 && s.opts.RecordUse != nil {
		if err := s.opts.RecordUse(r.Context(), out.IDs, in.Session); err != nil {
			// The block is right; only its bookkeeping failed.
			s.log.Error("recording the use of memories", "project", p.name, "err", err)
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

// captureIn is the body of POST /capture: an agent's output and who wrote
// it.
type captureIn struct {
	Text    string `json:"text"`
	Hat     string `json:"hat"`
	Agent   string `json:"agent"`
	Task    string `json:"task"`
	Session string `json:"session"`
}

func (s *Server) capture(w http.ResponseWriter, r *http.Request, p *project) error {
	var in captureIn
	if err := readJSON(w, r, MaxCaptureBytes, &in); err != nil {
		return err
	}
	sigs, probs := capture.Parse(in.Text)
	out := wire.CaptureReport{Stored: []wire.Captured{}, Problems: []wire.CaptureProblem{}}
	for _, pr := range probs {
		out.Problems = append(out.Problems, wire.CaptureProblem{Line: pr.Line, Reason: pr.Reason, Text: pr.Text})
	}
	prov := capture.Provenance{Hat: in.Hat, Agent: in.Agent, Task: in.Task, Session: in.Session}
	for _, sig := range sigs {
		res, err := p.svc.AddMemory(r.Context(), sig.MemoryFrom(p.name, prov))
		switch code := cairn.ErrorCode(err); {
		case err == nil:
			m := res.Memory
			out.Stored = append(out.Stored, wire.Captured{ID: m.ID, Status: res.Status, Kind: sig.Kind, Type: m.Type, Title: m.Title, Line: sig.Line})
		case code == cairn.EINVALID:
			// One bad signal does not stop the others, as in the CLI.
			out.Problems = append(out.Problems, wire.CaptureProblem{Line: sig.Line, Reason: "cannot store the " + sig.Kind + ": " + cairn.ErrorMessage(err), Text: sig.Title})
		default:
			return err
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}
