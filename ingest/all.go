package ingest

import (
	"context"

	"github.com/cairn-dev/cairn"
)

// AllOptions tune All.
type AllOptions struct {
	Kind    string // Claude or Codex
	Project string // the project of every transcript, unless ProjectOf is set
	// ProjectOf, when set, names the project of a transcript by its
	// working directory (Source.CWD), for an ingest of every project's
	// transcripts, each into its own; a transcript that names no working
	// directory is left out (AllReport.NoProject).
	ProjectOf func(cwd string) string
	Hat       string // the sessions' hat
	Agent     string // the sessions' agent; "" means Kind
	// OnWrite is Options.OnWrite, for every transcript.
	OnWrite func(m *cairn.Memory, res *cairn.WriteResult, err error)
	// OnError, when set, gets the error of a transcript that could not
	// be read or stored; All counts it (AllReport.Totals.Failed) and goes
	// on with the next.
	OnError func(src Source, err error)
	// OnProgress, when set, is called after each transcript, done of
	// total.
	OnProgress func(done, total int)
}

// AllReport says what All did.
type AllReport struct {
	Found     int // transcripts given
	Read      int // read (they had grown since the last run)
	Unchanged int // not read: unchanged since the last run
	NoProject int // left out: no working directory to tell their project
	// Projects are the projects whose transcripts were read.
	Projects map[string]bool
	// Totals adds up the reports of the transcripts.
	Totals *Report
}

// All reads each transcript of srcs (as Discover finds them) into its
// project, through the service svcOf returns for that project. A
// transcript that fails is counted and reported to opts.OnError; a
// cancelled ctx or a service that cannot be reached (EUNAVAILABLE) stops
// All with that error, after the transcripts already read.
func All(ctx context.Context, svcOf func(project string) Service, srcs []Source, opts AllOptions) (*AllReport, error) {
	rep := &AllReport{Found: len(srcs), Projects: map[string]bool{}, Totals: newReport("")}
	for i, src := range srcs {
		project := opts.Project
		if opts.ProjectOf != nil {
			if src.CWD == "" {
				rep.NoProject++
				continue
			}
			project = opts.ProjectOf(src.CWD)
		}
		r, err := File(ctx, svcOf(project), src.Path, Options{Kind: opts.Kind, Project: project, Hat: opts.Hat, Agent: opts.Agent,
			OnWrite: opts.OnWrite})
		if err != nil {
			if ctx.Err() != nil {
				return rep, ctx.Err()
			}
			if cairn.ErrorCode(err) == cairn.EUNAVAILABLE {
				return rep, err
			}
			if opts.OnError != nil {
				opts.OnError(src, err)
			}
			rep.Totals.Failed++
			continue
		}
		if r.Unchanged {
			rep.Unchanged++
		} else {
			rep.Read++
			rep.Projects[project] = true
		}
		rep.Totals.Add(r)
		if opts.OnProgress != nil {
			opts.OnProgress(i+1, len(srcs))
		}
	}
	return rep, nil
}
