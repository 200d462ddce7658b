package main

import (
	"context"
	"fmt"
	"os"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/ingest"
)

// runIngest reads agent transcripts and stores what they teach (package
// ingest): one file, or with --all every transcript of the project (of
// every project with --all-projects). Each transcript is read from where
// the last run stopped.
func runIngest(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "ingest", "claude|codex [flags] PATH | --all [--all-projects]")
	var hat, agent optString
	var asJSON bool
	fs.Var(&hat, "hat", "the agent role (hat) of the session, e.g. creator")
	fs.Var(&agent, "agent", "the agent of the session (default: the kind, claude or codex)")
	fs.BoolVar(&asJSON, "json", false, "print the counts as JSON")
	all := fs.Bool("all", false, "read every transcript of the current project that Claude Code (or Codex) kept")
	allProjects := fs.Bool("all-projects", false, "with --all: every project's transcripts, each into its own project")
	quiet := fs.Bool("quiet", false, "print no progress bar")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || (pos[0] != ingest.Claude && pos[0] != ingest.Codex) {
		return usagef("ingest: give the kind of transcript: claude or codex")
	}
	kind := pos[0]
	if *allProjects && !*all {
		return usagef("ingest: --all-projects goes with --all")
	}
	if *all != (len(pos) == 1) {
		return usagef("ingest: give one transcript file, or --all")
	}
	if *all {
		return ingestAll(ctx, m, g, kind, *allProjects, hat.v, agent.v, asJSON, *quiet)
	}
	var rep *ingest.Report
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		rep, err = ingest.File(ctx, svc, pos[1], ingest.Options{Kind: kind, Project: g.project, Hat: hat.v, Agent: agent.v,
			OnWrite: m.printWrite(asJSON)})
		return err
	})
	if err != nil {
		return err
	}
	if asJSON {
		if err := writeJSON(m.Stdout, fileJSON(rep)); err != nil {
			return err
		}
	} else {
		fmt.Fprintf(m.Stdout, "ingested %d lines (%d skipped, %d malformed): %d new, %d updated, %d reinforced, %d unchanged\n",
			rep.Lines, rep.Skipped, rep.Malformed, rep.Status[cairn.StatusCreated], rep.Status[cairn.StatusUpdated],
			rep.Status[cairn.StatusReinforced], rep.Status[cairn.StatusUnchanged])
	}
	if rep.Failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %s could not be stored\n", memories(rep.Failed))
		return exitError(exitFailure)
	}
	return nil
}

// printWrite prints each write as `cairn capture` does (unless quiet),
// and each failed one on standard error.
func (m *Main) printWrite(quiet bool) func(mem *cairn.Memory, res *cairn.WriteResult, err error) {
	return func(mem *cairn.Memory, res *cairn.WriteResult, err error) {
		switch {
		case err != nil:
			fmt.Fprintf(m.Stderr, "cairn: cannot store the %s %q: %s\n", mem.Type, mem.Title, oneLine(cairn.ErrorMessage(err)))
		case !quiet:
			fmt.Fprintf(m.Stdout, "%s %s %s: %s\n", res.Status, res.Memory.ID, res.Memory.Type, res.Memory.Title)
		}
	}
}

type ingestJSON struct {
	Source     string         `json:"source"`
	Offset     int64          `json:"offset"`
	Lines      int            `json:"lines"`
	Entries    int            `json:"entries"`
	Skipped    int            `json:"skipped"`
	Malformed  int            `json:"malformed"`
	New        int            `json:"new"`
	Updated    int            `json:"updated"`
	Reinforced int            `json:"reinforced"`
	Unchanged  int            `json:"unchanged"`
	Failed     int            `json:"failed"`
	Types      map[string]int `json:"types"`
}

func fileJSON(r *ingest.Report) ingestJSON {
	return ingestJSON{r.Path, r.Offset, r.Lines, r.Entries, r.Skipped, r.Malformed, r.Status[cairn.StatusCreated],
		r.Status[cairn.StatusUpdated], r.Status[cairn.StatusReinforced], r.Status[cairn.StatusUnchanged], r.Failed, r.Types}
}

// ingestAll reads every transcript of the project (or of all projects).
func ingestAll(ctx context.Context, m *Main, g *globals, kind string, allProjects bool, hat, agent string, asJSON, quiet bool) error {
	if err := g.resolve(m); err != nil {
		return err
	}
	root := ""
	if !allProjects {
		wd, err := m.Getwd()
		if err != nil {
			return fmt.Errorf("cannot tell the working directory: %v", err)
		}
		root = projectRoot(wd)
	}
	where := ingest.Where{Home: m.Getenv("HOME"), ClaudeDir: m.Getenv("CLAUDE_CONFIG_DIR"), CodexHome: m.Getenv("CODEX_HOME")}
	if where.Home == "" {
		where.Home, _ = os.UserHomeDir()
	}
	srcs, err := ingest.Discover(kind, where, root)
	if err != nil {
		return fmt.Errorf("looking for transcripts in %s: %v", where.Dir(kind), err)
	}
	opts := ingest.AllOptions{Kind: kind, Project: g.project, Hat: hat, Agent: agent, OnWrite: m.printWrite(true),
		OnError: func(_ ingest.Source, err error) {
			fmt.Fprintf(m.Stderr, "\ncairn: %s\n", oneLine(cairn.ErrorMessage(err)))
		}}
	if allProjects {
		opts.ProjectOf = projectOf
	}
	progress := !quiet && !asJSON && len(srcs) > 0 && isTerminal(m.Stderr)
	if progress {
		opts.OnProgress = func(done, total int) { fmt.Fprintf(m.Stderr, "\r%s transcripts", progressBar(done, total)) }
	}
	var rep *ingest.AllReport
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		rep, err = ingest.All(ctx, func(project string) ingest.Service { return svc.Named(project) }, srcs, opts)
		return err
	})
	if err != nil {
		return err
	}
	total, read, unchanged, noProject, projects := rep.Totals, rep.Read, rep.Unchanged, rep.NoProject, rep.Projects
	if progress {
		fmt.Fprintln(m.Stderr)
	}
	if asJSON {
		return writeJSON(m.Stdout, struct {
			Kind        string     `json:"kind"`
			Found       int        `json:"found"`
			Read        int        `json:"read"`
			Unchanged   int        `json:"unchanged"`
			NoProject   int        `json:"no_project,omitempty"`
			Projects    int        `json:"projects"`
			Transcripts ingestJSON `json:"totals"`
		}{kind, len(srcs), read, unchanged, noProject, len(projects), fileJSON(total)})
	}
	where2 := "project " + g.project
	if allProjects {
		where2 = fmt.Sprintf("%d projects", len(projects))
	}
	if len(srcs) == 0 {
		fmt.Fprintf(m.Stdout, "no %s transcripts of %s in %s\n", kind, where2, where.Dir(kind))
		return nil
	}
	fmt.Fprintf(m.Stdout, "read %d of %d %s transcripts of %s (%d unchanged since the last run), %d lines: %s\n",
		read, len(srcs), kind, where2, unchanged, total.Lines, total.Summary())
	if noProject > 0 {
		fmt.Fprintf(m.Stdout, "%d transcripts name no working directory and were left out\n", noProject)
	}
	if total.Failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d memories or transcripts could not be stored or read\n", total.Failed)
		return exitError(exitFailure)
	}
	return nil
}
