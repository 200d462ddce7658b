package main

import (
	"context"
	"fmt"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// runCapture stores the memories an agent's output signals, where the
// memories are (cairn.CaptureService). The formats are documented in
// package capture.
func runCapture(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "capture", "[flags] [FILE|-]")
	var hat, agent, task, session optString
	var asJSON bool
	fs.Var(&hat, "hat", "the agent role (hat) that produced the output, e.g. creator")
	fs.Var(&agent, "agent", "the agent that produced the output, e.g. claude")
	fs.Var(&task, "task", "the task `id` the output is about (links difficulty estimates and retry suggestions to it)")
	fs.Var(&session, "session", "the agent session `id` that produced the output")
	fs.BoolVar(&asJSON, "json", false, "print what was stored and the problems as JSON")
	var transition optString
	fs.Var(&transition, "hat-transition", "also extract what seed 000 keeps at this hat `transition` from the output: explorer:planner (architecture, dependencies) or planner:creator (decisions, constraints)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 1 {
		return usagef("capture: give one file, or - (or nothing) for standard input")
	}
	text, err := readCaptureInput(ctx, m, pos)
	if err != nil {
		return err
	}
	req := cairn.CaptureRequest{Text: text, Hat: hat.v, Agent: agent.v, Task: task.v, Session: session.v, HatTransition: transition.v}
	if transition.set && transition.v == "" {
		req.HatTransition = " " // given, but empty: unknown
	}
	if err := req.Validate(); err != nil {
		return usagef("capture: --hat-transition: %s", cairn.ErrorMessage(err))
	}
	var rep *cairn.CaptureReport
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		rep, err = svc.Capture(ctx, req)
		return err
	})
	if err != nil {
		return err
	}
	// What could not be read, then what was stored and what was refused,
	// in the order of the output.
	var read, refused []cairn.CaptureProblem
	for _, p := range rep.Problems {
		if p.Refused {
			refused = append(refused, p)
		} else {
			read = append(read, p)
			fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
		}
	}
	counts := map[string]int{}
	for _, c := range rep.Stored {
		counts[c.Status]++
		if !asJSON {
			fmt.Fprintf(m.Stdout, "%s %s %s: %s\n", c.Status, c.ID, c.Type, c.Title)
		}
	}
	for _, p := range refused {
		fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
	}
	if asJSON {
		out := wire.CaptureReportOf(&cairn.CaptureReport{Stored: rep.Stored, Problems: read})
		if err := writeJSON(m.Stdout, out); err != nil {
			return err
		}
	} else {
		updated := ""
		if n := counts[cairn.StatusUpdated]; n > 0 {
			updated = fmt.Sprintf(", %d updated", n)
		}
		plural := "s"
		if len(read) == 1 {
			plural = ""
		}
		fmt.Fprintf(m.Stdout, "captured %d: %d new%s, %d reinforced, %d unchanged; %d problem%s\n",
			len(rep.Stored), counts[cairn.StatusCreated], updated, counts[cairn.StatusReinforced],
			counts[cairn.StatusUnchanged], len(read), plural)
	}
	if len(refused) > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d of %d signals could not be stored\n", len(refused), len(refused)+len(rep.Stored))
		return exitError(exitFailure)
	}
	return nil
}

// readCaptureInput reads the named file, or standard input for "-" or no
// argument.
func readCaptureInput(ctx context.Context, m *Main, pos []string) (string, error) {
	if len(pos) == 0 || pos[0] == "-" {
		return readText(ctx, m.Stdin, "standard input")
	}
	return readFileText(ctx, pos[0])
}
