package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/wire"
)

// runCapture stores the memories an agent's output signals. The formats
// are documented in package capture.
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
	sigs, probs := capture.Parse(text)
	if transition.set {
		hs, err := capture.HatTransition(transition.v, text)
		if err != nil {
			return usagef("capture: --hat-transition: %v", err)
		}
		sigs = append(sigs, hs...)
		if !hat.set {
			hat.v, _, _ = strings.Cut(strings.ToLower(transition.v), ":") // the hat that wrote the output
		}
	}

	out := wire.CaptureReport{Stored: []wire.Captured{}, Problems: []wire.CaptureProblem{}}
	for _, p := range probs {
		out.Problems = append(out.Problems, wire.CaptureProblem{Line: p.Line, Reason: p.Reason, Text: p.Text})
		fmt.Fprintf(m.Stderr, "cairn: line %d: %s\n", p.Line, p.Reason)
	}

	counts := map[string]int{}
	failed := 0
	if len(sigs) > 0 {
		err := m.withService(ctx, g, writeDB, func(svc cairn.App) error {
			out.Stored = out.Stored[:0]
			st := newStorer(ctx, m, svc, asJSON)
			prov := capture.Provenance{Hat: hat.v, Agent: agent.v, Task: task.v, Session: session.v}
			for _, sig := range sigs {
				res, err := st.store(sig.MemoryFrom(g.project, prov), fmt.Sprintf("line %d: ", sig.Line), sig.Kind)
				if err != nil {
					return err
				}
				if res != nil {
					out.Stored = append(out.Stored, wire.Captured{ID: res.Memory.ID, Status: res.Status, Kind: sig.Kind,
						Type: res.Memory.Type, Title: res.Memory.Title, Line: sig.Line})
				}
			}
			counts, failed = st.counts, st.failed
			return nil
		})
		if err != nil {
			return err
		}
	}
	if asJSON {
		if err := writeJSON(m.Stdout, out); err != nil {
			return err
		}
	} else {
		updated := ""
		if n := counts[cairn.StatusUpdated]; n > 0 {
			updated = fmt.Sprintf(", %d updated", n)
		}
		plural := "s"
		if len(probs) == 1 {
			plural = ""
		}
		fmt.Fprintf(m.Stdout, "captured %d: %d new%s, %d reinforced, %d unchanged; %d problem%s\n",
			len(out.Stored), counts[cairn.StatusCreated], updated, counts[cairn.StatusReinforced],
			counts[cairn.StatusUnchanged], len(probs), plural)
	}
	if failed > 0 {
		fmt.Fprintf(m.Stderr, "cairn: %d of %d signals could not be stored\n", failed, len(sigs))
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
