package httpapi

import (
	"net/http"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Routes that read for an agent: search and context; and capture, which
// stores what an agent's output signals.

func (s *Server) search(w http.ResponseWriter, r *http.Request, p *project) error {
	q := &query{r: r}
	text := q.str("q")
	if len(text) > cairn.MaxQueryBytes {
		return cairn.Errorf(cairn.EINVALID, "q is %d bytes; give the words to look for, at most %d bytes", len(text), cairn.MaxQueryBytes)
	}
	qr := cairn.Query{
		Project: p.name, Text: text, Limit: q.integer("limit", cairn.DefaultLimit, 1, cairn.MaxLimit),
		Types: q.types("type"), Tags: q.list("tag"), After: q.timeAlias("after", "after_date"), Before: q.timeAlias("before", "before_date"),
		ExcludeSession: q.str("exclude_session"), Agent: q.str("agent"), NoGlobal: q.flag("no_global", false),
		Mode: q.oneOf("mode", "", cairn.ModeLexical, cairn.ModeVector, cairn.ModeHybrid),
	}
	explain := q.flag("explain", false)
	exact := q.flag("exact", false)
	if q.err != nil {
		return q.err
	}
	qr.Explain = explain || exact
	// An empty q is the service's EINVALID, worded as it words it.
	hits, how, err := p.svc.SearchRetrieval(r.Context(), qr)
	if err != nil {
		return err
	}
	wire.SetRetrieval(w.Header(), how)
	out := make([]wire.Hit, 0, len(hits))
	for _, h := range hits {
		if exact {
			out = append(out, wire.FromHitExact(h))
		} else {
			out = append(out, wire.FromHit(h, explain))
		}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) searchTerms(w http.ResponseWriter, r *http.Request, p *project) error {
	text := (&query{r: r}).str("q")
	if len(text) > cairn.MaxQueryBytes {
		return cairn.Errorf(cairn.EINVALID, "q is %d bytes; give the words to look for, at most %d bytes", len(text), cairn.MaxQueryBytes)
	}
	x, err := p.svc.ExplainQuery(r.Context(), text)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.QueryExplanationOf(x))
	return nil
}

func (s *Server) context(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.ContextIn
	if err := readJSON(w, r, MaxJSONBytes, &in); err != nil {
		return err
	}
	if in.MaxJSONChars < 0 {
		return cairn.Errorf(cairn.EINVALID, "max_json_chars cannot be negative")
	}
	for _, t := range in.Tiers {
		switch t {
		case cairn.ContextPinned, cairn.ContextStatic, cairn.ContextDynamic, cairn.ContextRelevant, cairn.ContextParallel:
		default:
			return cairn.Errorf(cairn.EINVALID, "tiers: %q is not a tier (pinned, static, dynamic, relevant, parallel)", t)
		}
	}
	call := cairn.ContextCall{ContextRequest: cairn.ContextRequest{Profile: in.Profile, Project: p.name, Prompt: in.Prompt, Files: in.Files, Hat: in.Hat, Agent: in.Agent,
		Task: in.Task, Session: in.Session, Format: in.Format, Mode: in.Mode, SearchMode: in.SearchMode, Tiers: in.Tiers, Types: in.Types,
		Index: in.Index, Explain: in.Explain, Conversations: in.Conversations, Keywords: in.Keywords},
		Now: p.now, MaxJSONChars: in.MaxJSONChars,
		// A read-only token's block is a preview: recording its use would
		// raise the confidence of what it shows.
		Record: !in.DryRun && (p.token == nil || !p.token.ReadOnly)}
	if !s.opts.RequireToken {
		// A server that needs no token answers this machine's user only:
		// the project's folder is theirs to read.
		call.Root = s.root(p.name)
	}
	if in.Budget != nil {
		call.Budget, call.BudgetSet = *in.Budget, true
	}
	if in.Limit != nil {
		call.Limit, call.LimitSet = *in.Limit, true
	}
	if in.MaxChars != nil {
		call.MaxChars, call.MaxCharsSet = *in.MaxChars, true
	}
	a, err := p.svc.Context(r.Context(), call)
	if err != nil && a != nil {
		// The block is right; only its bookkeeping failed (or was cut
		// short by the client leaving).
		if !clientGone(r, err) {
			s.log.Error("recording the use of memories", "project", p.name, "err", err)
		}
	} else if err != nil {
		return err
	}
	wire.SetRetrieval(w.Header(), a.Retrieval)
	out := wire.ContextOut{Block: a.Text, IDs: a.IDs, Tokens: a.Tokens, Explain: a.Explain}
	if out.IDs == nil {
		out.IDs = []string{}
	}
	writeJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) capture(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.CaptureIn
	if err := readJSON(w, r, MaxCaptureBytes, &in); err != nil {
		return err
	}
	rep, err := p.svc.Capture(r.Context(), cairn.CaptureRequest{Text: in.Text, Hat: in.Hat, Agent: in.Agent, Task: in.Task,
		Session: in.Session, HatTransition: in.HatTransition})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.CaptureReportOf(rep))
	return nil
}

func (s *Server) taskEvent(w http.ResponseWriter, r *http.Request, p *project) error {
	var in wire.TaskEventIn
	if err := readJSON(w, r, MaxCaptureBytes, &in); err != nil {
		return err
	}
	rep, err := p.svc.RecordTaskEvent(r.Context(), cairn.TaskEvent{Event: in.Event, Task: in.Task, Title: in.Title, Text: in.Text,
		Files: in.Files, Agent: in.Agent, Session: in.Session, Hat: in.Hat})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, wire.TaskReportOf(rep))
	return nil
}
