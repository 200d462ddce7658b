package main

import (
	"context"
	"flag"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runRecall answers a lookup by name (--file, --error, --command).
func runRecall(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "recall", "--file PATH | --error TEXT|- | --command TOOL [flags]")
	var file, errText, command optString
	fs.Var(&file, "file", "what is known about the file at `PATH`: decisions, pitfalls and fixes that name it, and the sessions that changed it")
	fs.Var(&errText, "error", "what fixed this error `TEXT` before (- reads it from standard input)")
	fs.Var(&command, "command", "how the command `TOOL` (e.g. \"go test\") was run when it worked")
	budget := fs.Int("budget", cairn.DefaultLookupBudget, "answer in at most `TOKENS` tokens")
	limit := fs.Int("limit", cairn.DefaultLookupLimit, "at most `N` memories")
	asJSON := fs.Bool("json", false, "print the answer as JSON")
	var types listFlag
	fs.Var(&types, "type", "without a lookup: only these `types` (seed 002's categories: pattern, error_solution, …)")
	agent := fs.String("agent", "", "without a lookup: only what this `agent` learned")
	session := fs.String("session", "", "without a lookup: the `session` recalling (recorded with the use)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	n := 0
	for _, f := range []optString{file, errText, command} {
		if f.set {
			n++
		}
	}
	if n == 0 {
		if len(pos) > 0 {
			return usagef("recall: unexpected argument %q (give --file, --error or --command to look something up)", pos[0])
		}
		lim := 20
		fs.Visit(func(f *flag.Flag) {
			if f.Name == "limit" {
				lim = *limit
			}
		})
		return recallByValue(ctx, m, g, types.vals, *agent, *session, lim, *asJSON)
	}
	if types.set || *agent != "" || *session != "" {
		return usagef("recall: --type, --agent and --session go without --file, --error and --command")
	}
	if n > 1 || len(pos) > 0 {
		return usagef("recall: give one of --file, --error or --command, and nothing else")
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	req := cairn.LookupRequest{Project: g.project, Budget: *budget, Limit: *limit}
	switch {
	case file.set:
		req.Kind, req.Subject = cairn.LookupFile, m.projectPath(g, file.v)
	case errText.set:
		req.Kind, req.Subject = cairn.LookupError, errText.v
		if errText.v == "-" {
			if req.Subject, err = readText(ctx, m.Stdin, "standard input"); err != nil {
				return err
			}
		}
	default:
		req.Kind, req.Subject = cairn.LookupCommand, command.v
	}
	if strings.TrimSpace(req.Subject) == "" {
		return usagef("recall: the %s to look up is empty", req.Kind)
	}
	if *limit < 1 || *limit > cairn.MaxLookupLimit {
		return usagef("recall: --limit must be from 1 to %d", cairn.MaxLookupLimit)
	}
	if *budget < cairn.MinLookupBudget {
		return usagef("recall: --budget must be at least %d tokens", cairn.MinLookupBudget)
	}
	var res *cairn.LookupAnswer
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		req.Project = g.project
		if g.now != "" {
			now, err := g.clock()
			if err != nil {
				return err
			}
			req.Now = now()
		}
		res, err = svc.Lookup(ctx, req)
		return err
	})
	if errIsNoDatabase(err) {
		res, err = &cairn.LookupAnswer{Kind: req.Kind, Subject: req.Subject}, nil
	}
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.LookupOf(res))
	}
	if res.Text == "" {
		fmt.Fprintf(m.Stderr, "cairn: nothing is known about %s\n", req.Subject)
		return nil
	}
	_, err = fmt.Fprint(termSafe(m.Stdout), res.Text)
	return err
}

// projectPath is p relative to the project's folder when it lies inside
// it (memories name files that way), else p as given.
func (m *Main) projectPath(g *globals, p string) string {
	root := m.projectFolder(g)
	if root == "" {
		return p
	}
	abs := p
	if !filepath.IsAbs(abs) {
		wd, err := m.Getwd()
		if err != nil {
			return p
		}
		abs = filepath.Join(wd, p)
	}
	rel, err := filepath.Rel(root, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		return p
	}
	return filepath.ToSlash(rel)
}

// recallByValue is seed 002's recall: the memories that are trusted and
// used most, their use recorded (cairn.ValueRecallService).
func recallByValue(ctx context.Context, m *Main, g *globals, types []string, agent, session string, limit int, asJSON bool) error {
	if err := checkTypeNames("recall", types...); err != nil {
		return err
	}
	if limit < 1 || limit > cairn.MaxLimit {
		return usagef("recall: --limit must be from 1 to %d", cairn.MaxLimit)
	}
	var mems []*cairn.Memory
	err := m.withService(ctx, g, recordDB, func(svc cairn.App) error {
		var err error
		mems, err = svc.RecallByValue(ctx, cairn.ValueRecall{Types: types, Agent: agent, Limit: limit, Session: session, Record: true})
		return err
	})
	if errIsNoDatabase(err) {
		mems, err = nil, nil // nothing remembered yet
	}
	if err != nil {
		return err
	}
	if asJSON {
		return writeJSON(m.Stdout, wire.MemoriesOf(mems))
	}
	for _, mem := range mems {
		fmt.Fprintf(termSafe(m.Stdout), "%-20s  %-14s %.2f × %d uses  %s\n", mem.ID, mem.Type, mem.Confidence, mem.UseCount, clip(mem.Title, 80))
	}
	return nil
}
