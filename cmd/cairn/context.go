package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/contextpack"
)

func runContext(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "context", "[flags]")
	var files listFlag
	var budget, limit, maxChars optInt
	prompt := fs.String("prompt", "", "the task or prompt `text` to find relevant memories for")
	hat := fs.String("hat", "", "the agent's current role, e.g. explorer, planner, creator, critic, editor")
	agent := fs.String("agent", "", "the agent's `name`: its own memories count more")
	task := fs.String("task", "", "the task `id`: its memories count more")
	session := fs.String("session", "", "the current `session`: its own memories are left out")
	fs.Var(&files, "files", "comma-separated `paths` being worked on")
	fs.Var(&budget, "budget", "token `budget` for the block (default from the configuration, 1500)")
	fs.Var(&limit, "limit", "at most `N` relevant memories (default from the configuration, 8)")
	fs.Var(&maxChars, "max-chars", "hard cap on the block in characters (default 10000, Claude Code's limit)")
	format := fs.String("format", "", "markdown (default), xml or json")
	mode := fs.String("mode", "", "a mode from the configuration: autopilot, ralph, swarm, eco, …")
	explain := fs.Bool("explain", false, "after the block, explain each chosen memory's score and what was left out and why")
	index := fs.Bool("index", false, "add the memory index: types with counts and recent titles")
	dryRun := fs.Bool("dry-run", false, "record nothing (use counts, last use, confidence stay as they are)")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	cfg, err := m.loadConfig()
	if err != nil {
		return err
	}
	c := cfg.Config
	if *mode != "" {
		if err := c.ApplyMode(*mode); err != nil {
			return err
		}
	} else if err := c.ApplyMode(c.Context.Mode); err != nil {
		return err
	}
	keywords := c.ApplyKeywords(*prompt)
	if budget.set {
		c.Context.Budget = budget.v
	}
	if limit.set {
		c.Context.Relevant.Limit = limit.v
	}
	if maxChars.set {
		c.Context.MaxChars = maxChars.v
	}
	if *format == "" {
		*format = c.Context.Format
	}
	switch *format {
	case contextpack.FormatMarkdown, contextpack.FormatXML, contextpack.FormatJSON:
	default:
		return usagef("context: --format must be markdown, xml or json")
	}
	if c.Context.Budget < 0 || c.Context.Relevant.Limit < 0 || c.Context.MaxChars < 0 {
		return usagef("context: --budget, --limit and --max-chars cannot be negative")
	}

	if m.resident == nil {
		if _, err := os.Stat(g.db); err != nil {
			return nil // nothing remembered yet: an empty block, and no file created
		}
	}
	s, err := m.open(ctx, g, *dryRun)
	if err == errNoDatabase {
		return nil // nothing remembered yet: an empty block
	}
	if err != nil {
		return err
	}
	defer s.Close()
	req := contextRequest(c, g.project, *prompt, *hat, *agent, *task, *session, files.vals)
	req.Now = s.eng.Now()
	sel, err := s.eng.SelectContext(ctx, req)
	if err != nil {
		return err
	}
	pr := contextpack.Request{
		Project: g.project, Sections: sections(sel), Budget: c.Context.Budget,
		MaxChars: c.Context.MaxChars, Format: *format, Explain: *explain,
	}
	if *index {
		if pr.Index, err = memoryIndex(ctx, s, g.project); err != nil {
			return err
		}
	}
	res := contextpack.Render(pr)
	if res.Text != "" {
		fmt.Fprint(m.Stdout, res.Text)
		if !strings.HasSuffix(res.Text, "\n") {
			fmt.Fprintln(m.Stdout)
		}
	}
	if *explain {
		printExplain(m, c, keywords, sel, res)
	}
	if *dryRun || len(res.Placed) == 0 {
		return nil
	}
	ids := make([]string, 0, len(res.Placed))
	for _, p := range res.Placed {
		ids = append(ids, p.ID)
	}
	return s.recordUse(ctx, ids, *session)
}

// contextRequest maps the configuration and the flags to a request.
func contextRequest(c *config.Config, project, prompt, hat, agent, task, session string, files []string) cairn.ContextRequest {
	req := cairn.DefaultContextRequest(project) // for the weights the configuration does not hold
	req.Prompt, req.Hat, req.Agent, req.Task, req.Session, req.Files = prompt, hat, agent, task, session, files
	sc, cc := c.Scoring, c.Context
	req.Weights = cairn.ContextWeights{
		Relevance: sc.Relevance, Confidence: sc.Confidence, SameHat: sc.SameHat, RelatedHat: sc.RelatedHat,
		PathOverlap: sc.PathOverlap, TagMatch: sc.TagMatch, SameAgent: req.Weights.SameAgent,
		SameTask: req.Weights.SameTask, RecencyMax: sc.RecencyMax, RecencyPerDay: sc.RecencyPerDay,
		HatRelations: sc.HatRelations,
	}
	req.MinRelevance = max(sc.Threshold, cc.Relevant.MinRelevance)
	req.StaticTypes, req.CriticalTypes, req.DynamicTypes, req.DynamicCount, req.RelevantLimit = nil, nil, nil, 0, 0
	req.RelevantTypes = cc.Relevant.Types
	if cc.Static.Enabled {
		req.StaticTypes = cc.Static.Types
		// min_constraint_confidence 0 turns critical constraints off.
		if cc.Static.MinConstraintConfidence > 0 {
			req.CriticalTypes = cairn.DefaultContextRequest(project).CriticalTypes
			req.CriticalConfidence = cc.Static.MinConstraintConfidence
		}
	}
	if cc.Dynamic.Enabled {
		req.DynamicTypes, req.DynamicCount = cc.Dynamic.Types, cc.Dynamic.Count
	}
	if cc.Relevant.Enabled {
		req.RelevantLimit = cc.Relevant.Limit
	}
	return req
}

// The sections of the block, in the order they are packed and shown.
var sectionOrder = []struct {
	kind, title string
	priority    int
	grouped     bool
}{
	{"pinned", "Pinned", 0, false},
	{"constraints", "Critical Constraints", 1, false},
	{"preferences", "Preferences", 1, false},
	{"decisions", "Project Decisions", 1, false},
	{"conventions", "Conventions", 1, false},
	{"sessions", "Recent Sessions", 2, false},
	{"relevant", "Relevant Knowledge", 3, true},
}

// sections groups the chosen memories into the block's sections.
func sections(sel *cairn.ContextSelection) []contextpack.Section {
	items := map[string][]contextpack.Item{}
	for _, it := range sel.Items {
		m := it.Memory
		kind := "relevant"
		switch it.Tier {
		case cairn.ContextPinned:
			kind = "pinned"
		case cairn.ContextDynamic:
			kind = "sessions"
		case cairn.ContextStatic:
			switch {
			case m.Type == "decision":
				kind = "decisions"
			case m.Type == "constraint" || m.Type == "architecture":
				kind = "constraints"
			case m.Type == "convention":
				kind = "conventions"
			default:
				kind = "preferences"
			}
		}
		reasons := make([]contextpack.Reason, 0, len(it.Reasons))
		for _, r := range it.Reasons {
			reasons = append(reasons, contextpack.Reason{Name: r.Name, Value: r.Value})
		}
		items[kind] = append(items[kind], contextpack.Item{
			ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Tags: m.Tags,
			FileRefs: m.FileRefs, CreatedAt: m.CreatedAt, Value: it.Score + m.Confidence, Reasons: reasons,
		})
	}
	var out []contextpack.Section
	for _, so := range sectionOrder {
		if len(items[so.kind]) > 0 {
			out = append(out, contextpack.Section{Kind: so.kind, Title: so.title, Priority: so.priority,
				GroupByType: so.grouped, Items: items[so.kind]})
		}
	}
	return out
}

// memoryIndex is seed 001's memory index: each type with its count and its
// two newest titles.
func memoryIndex(ctx context.Context, s *session, project string) ([]contextpack.IndexType, error) {
	st, err := s.eng.Stats(ctx, project)
	if err != nil {
		return nil, err
	}
	var out []contextpack.IndexType
	for _, t := range contextpack.TypeOrder() {
		n := st.ByType[t]
		if n == 0 {
			continue
		}
		it := contextpack.IndexType{Type: t, Count: n}
		ms, _, err := s.eng.FindMemories(ctx, cairn.MemoryFilter{Project: project, Types: []string{t}, Sort: cairn.SortCreatedDesc, Limit: 2})
		if err != nil {
			return nil, err
		}
		for _, m := range ms {
			it.Recent = append(it.Recent, contextpack.IndexEntry{Title: m.Title, Date: m.CreatedAt})
		}
		out = append(out, it)
	}
	return out, nil
}

func printExplain(m *Main, c *config.Config, keywords []string, sel *cairn.ContextSelection, res contextpack.Result) {
	w := m.Stdout
	fmt.Fprintf(w, "\n--- explain ---\n")
	if c.Context.Mode != "" {
		fmt.Fprintf(w, "mode: %s\n", c.Context.Mode)
	}
	if len(keywords) > 0 {
		fmt.Fprintf(w, "keywords: %s\n", strings.Join(keywords, ", "))
	}
	fmt.Fprintf(w, "search terms: %s\n", strings.Join(sel.Terms, " "))
	fmt.Fprintf(w, "budget: %d tokens, used %d; relevant limit %d, threshold %.2f, sessions %d\n",
		c.Context.Budget, res.Tokens, c.Context.Relevant.Limit, c.Scoring.Threshold, c.Context.Dynamic.Count)
	if res.Explain != "" {
		fmt.Fprint(w, res.Explain)
		if !strings.HasSuffix(res.Explain, "\n") {
			fmt.Fprintln(w)
		}
	}
	for _, l := range sel.LeftOut {
		if l.Score != 0 {
			fmt.Fprintf(w, "left out %s: %s (score %.3f)\n", l.ID, l.Reason, l.Score)
		} else {
			fmt.Fprintf(w, "left out %s: %s\n", l.ID, l.Reason)
		}
	}
}

// loadConfig reads the user's and the project's configuration files.
func (m *Main) loadConfig() (*config.Loaded, error) {
	userDir := m.Getenv("XDG_CONFIG_HOME")
	if userDir == "" {
		if home := m.Getenv("HOME"); home != "" {
			userDir = filepath.Join(home, ".config")
		} else if home, err := os.UserHomeDir(); err == nil {
			userDir = filepath.Join(home, ".config")
		}
	}
	if userDir != "" {
		userDir = filepath.Join(userDir, "cairn")
	}
	wd, err := m.Getwd()
	if err != nil {
		wd = ""
	}
	return config.Load(projectRoot(wd), userDir)
}

// projectRoot is the git top-level folder of dir, else dir.
func projectRoot(dir string) string {
	if dir == "" {
		return ""
	}
	for d := dir; ; {
		if _, err := os.Stat(filepath.Join(d, ".git")); err == nil {
			return d
		}
		parent := filepath.Dir(d)
		if parent == d {
			return dir
		}
		d = parent
	}
}
