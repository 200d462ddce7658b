package main

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/wire"
)

func runSearch(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "search", "[flags] QUERY | --batch FILE|-")
	var types, tags listFlag
	var after, before timeFlag
	limit := fs.Int("limit", cairn.DefaultLimit, "return at most `N` memories")
	fs.Var(&types, "type", "only these `types` (comma-separated)")
	fs.Var(&tags, "tag", "only memories with all these `tags`")
	fs.Var(&tags, "tags", "the same as --tag, as add takes it")
	fs.Var(&after, "after", "only memories created at or after this `time` (RFC 3339 or YYYY-MM-DD)")
	fs.Var(&before, "before", "only memories created before this `time`")
	exclude := fs.String("exclude-session", "", "leave out memories written in this `session`")
	agent := fs.String("agent", "", "only memories written by this `agent`")
	noGlobal := fs.Bool("no-global", false, "leave out global-scope memories")
	asJSON := fs.Bool("json", false, "print a JSON array of hits (id, score, type, title, content, …)")
	explain := fs.Bool("explain", false, "show how each score is made: the query's weighted terms and every part of each hit's score")
	batch := fs.String("batch", "", "run the JSON Lines queries in `FILE` (- for standard input)")
	mode := fs.String("mode", "", "rank by `lexical` words, vector similarity, or both fused (hybrid); default hybrid when an embeddings endpoint is configured (embeddings.mode), else lexical")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkTypeNames("search", types.vals...); err != nil {
		return err
	}
	if err := searchModeFlag("search", "--mode", *mode); err != nil {
		return err
	}
	if *batch != "" {
		if len(pos) > 0 {
			return usagef("search: give either a QUERY or --batch, not both")
		}
		return runBatch(ctx, m, g, *batch, *mode)
	}
	if len(pos) == 0 {
		return usagef("search: give the words to look for")
	}
	if *limit < 1 || *limit > cairn.MaxLimit {
		return usagef("search: --limit must be from 1 to %d", cairn.MaxLimit)
	}
	text, err := m.readContent(ctx, pos)
	if err != nil {
		return err
	}
	var hits []cairn.Hit
	var how cairn.Retrieval
	var terms *cairn.QueryExplanation
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		hits, how, err = svc.SearchRetrieval(ctx, cairn.Query{
			Project: g.project, Text: text, Limit: *limit, Types: types.vals, Tags: tags.vals,
			After: after.t, Before: before.t, ExcludeSession: *exclude, Agent: *agent, NoGlobal: *noGlobal, Mode: *mode,
			Explain: *explain,
		})
		if err == nil && *explain && !*asJSON {
			terms, err = svc.ExplainQuery(ctx, text)
		}
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	if how.Fallback != "" && !*explain {
		fmt.Fprintf(m.Stderr, "cairn: ranked lexically: %s\n", how.Fallback)
	}
	if *asJSON {
		out := make([]wire.Hit, 0, len(hits))
		for _, h := range hits {
			out = append(out, wire.FromHit(h, *explain))
		}
		return writeJSON(m.Stdout, out)
	}
	bw := bufio.NewWriter(m.Stdout)
	w := termSafe(bw)
	if *explain {
		if terms == nil {
			terms = local.ExplainQuery(text) // nothing remembered yet
		}
		fmt.Fprintf(w, "query terms (weight):")
		for _, q := range terms.Terms {
			fmt.Fprintf(w, " %s (%.2f)", q.Term, q.Weight)
		}
		fmt.Fprintln(w)
		io.WriteString(w, how.ExplainLine())
		fmt.Fprintf(w, "bm25: k1 %g, b %g, lengths against %g terms; coverage share %g; a neighbour is lent %g of a match, and one longer than the pivot, with its own match, at most %g of it\n",
			terms.K1, terms.B, terms.Pivot, terms.Coverage, terms.NeighbourShare, terms.NeighbourCap)
	}
	for i, h := range hits {
		fmt.Fprintf(w, "%2d. %s  %-12s %.3f  %s%s\n", i+1, h.Memory.ID, h.Memory.Type, h.Score, clip(h.Memory.Title, 80), marks(h.Memory))
		if h.Memory.Content != h.Memory.Title {
			fmt.Fprintf(w, "    %s\n", clip(h.Memory.Content, 160))
		}
		if x := h.Explain; x != nil {
			if how.Used != "" && how.Used != cairn.ModeLexical {
				fmt.Fprintf(w, "    lexical rank %s, vector rank %s (similarity %.3f) → fused %.4f\n", rankText(x.LexicalRank), rankText(x.VectorRank), x.Similarity, x.Fused)
			}
			fmt.Fprintf(w, "    bm25 %.3f × coverage %.2f → match %.3f (strength %.2f)", x.Lexical, x.Coverage, x.Match, h.Strength)
			if x.Lent > 0 {
				fmt.Fprintf(w, "; lent %.3f by %s (same session or task%s)", x.Lent, x.LentBy, lentCapped(h, hits, terms))
			}
			if x.DateFactor != 1 {
				fmt.Fprintf(w, "; × date %.2f (created in a period the query names)", x.DateFactor)
			}
			if x.Typicality != 0 {
				fmt.Fprintf(w, "; prompt's typicality of the project %.2f (below 0: another project's), strength × %.2f, the chance the prompt is the project's", x.Typicality, cairn.PromptBelongs(x.Typicality))
			}
			fmt.Fprintf(w, "\n    relevance %.3f of the best × salience factor %.3f (salience %.3f: type, confidence %.2f, recency, %d uses) = %.3f\n",
				h.Relevance, x.SalienceFactor, h.Salience, h.Memory.Confidence, h.Memory.UseCount, h.Score)
		}
	}
	if len(hits) == 0 {
		fmt.Fprintln(m.Stderr, "cairn: no memory matches")
	}
	return bw.Flush()
}

// lentCapped says when what h was lent stopped at the share of its
// lender's match that lending lifts a long memory to at most.
func lentCapped(h cairn.Hit, hits []cairn.Hit, terms *cairn.QueryExplanation) string {
	c := terms.NeighbourCap
	x := h.Explain
	for _, l := range hits {
		if l.Explain != nil && l.Memory.ID == x.LentBy && c > 0 && math.Abs(x.Match+x.Lent-c*l.Explain.Match) <= 1e-9*l.Explain.Match {
			return fmt.Sprintf("; longer than %g terms: with its own match, at most %g of the lender's", terms.Pivot, c)
		}
	}
	return ""
}

// rankText is a place in a ranking, "-" for none.
func rankText(r int) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprint(r)
}

// batchQuery is one line of `search --batch` input.
type batchQuery struct {
	QID     string `json:"qid"`
	Project string `json:"project"`
	Query   string `json:"query"`
	Now     string `json:"now"`
	Limit   int    `json:"limit"`
	Mode    string `json:"mode"` // "" takes --mode
}

type batchResult struct {
	QID   string   `json:"qid"`
	IDs   []string `json:"ids"`
	Error string   `json:"error,omitempty"`
}

// runBatch answers one JSON line per input line, in order. A bad line gets
// an "error" field and empty ids; the exit status is then 1.
func runBatch(ctx context.Context, m *Main, g *globals, path, mode string) error {
	var in io.Reader = m.Stdin
	if path != "-" {
		f, err := os.Open(path)
		if err != nil {
			return cairn.WrapError(cairn.EINVALID, err, "cannot read the batch file")
		}
		defer f.Close()
		in = f
	}
	// The whole batch runs on one service. A query the service cannot
	// answer gets its error on its line.
	err := m.withService(ctx, g, readDB, func(svc cairn.App) error {
		return answerBatch(ctx, m, g, svc.Search, in, mode)
	})
	if errIsNoDatabase(err) {
		// Nothing remembered yet: every query finds nothing.
		return answerBatch(ctx, m, g, func(context.Context, cairn.Query) ([]cairn.Hit, error) { return nil, nil }, in, mode)
	}
	return err
}

// answerBatch answers the queries of in with search; mode is the
// ranking of the queries that name none.
func answerBatch(ctx context.Context, m *Main, g *globals, search func(context.Context, cairn.Query) ([]cairn.Hit, error), in io.Reader, mode string) error {
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	w := bufio.NewWriter(m.Stdout)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	failed, line := 0, 0
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		res := batchResult{IDs: []string{}}
		var q batchQuery
		if err := json.Unmarshal(b, &q); err != nil {
			res.Error = fmt.Sprintf("line %d: not a JSON query object: %v", line, err)
		} else {
			res.QID = q.QID
			if q.Mode == "" {
				q.Mode = mode
			}
			var err error
			res.IDs, err = batchSearch(ctx, search, g, q)
			if err != nil {
				res.IDs = []string{}
				res.Error = oneLine(cairn.ErrorMessage(err))
			}
		}
		if res.Error != "" {
			failed++
		}
		if err := enc.Encode(res); err != nil {
			return err
		}
	}
	if err := sc.Err(); err != nil {
		w.Flush()
		return cairn.WrapError(cairn.EINVALID, err, "reading the batch stopped at line %d", line+1)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if failed > 0 {
		return cairn.Errorf(cairn.EINVALID, "%d of %d batch queries failed (see their \"error\" fields)", failed, line)
	}
	return nil
}

func batchSearch(ctx context.Context, search func(context.Context, cairn.Query) ([]cairn.Hit, error), g *globals, q batchQuery) ([]string, error) {
	project := q.Project
	if project == "" {
		project = g.project
	}
	var now time.Time
	if q.Now != "" {
		var err error
		if now, err = wire.ParseTime(q.Now); err != nil {
			return nil, cairn.Errorf(cairn.EINVALID, "now: %v", err)
		}
	}
	hits, err := search(ctx, cairn.Query{Project: project, Text: q.Query, Limit: q.Limit, Now: now, Mode: q.Mode})
	if err != nil {
		return nil, err
	}
	ids := make([]string, 0, len(hits))
	for _, h := range hits {
		ids = append(ids, h.Memory.ID)
	}
	return ids, nil
}
