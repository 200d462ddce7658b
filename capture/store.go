package capture

import (
	"context"
	"strings"

	"github.com/cairn-dev/cairn"
)

// Adder stores a memory, as cairn.Service's AddMemory.
type Adder interface {
	AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error)
}

// Store is cairn.CaptureService's Capture over svc, in project: the
// signals of r.Text (Parse) and of its hat transition (HatTransition),
// each stored with r's provenance.
func Store(ctx context.Context, svc Adder, project string, r cairn.CaptureRequest) (*cairn.CaptureReport, error) {
	if err := r.Validate(); err != nil {
		return nil, err
	}
	sigs, probs := Parse(r.Text)
	hat := r.Hat
	if r.HatTransition != "" {
		hs, err := HatTransition(r.HatTransition, r.Text)
		if err != nil {
			return nil, cairn.Errorf(cairn.EINVALID, "%v", err)
		}
		sigs = append(sigs, hs...)
		if hat == "" {
			hat, _, _ = strings.Cut(strings.ToLower(strings.TrimSpace(r.HatTransition)), ":") // the hat that wrote the output
		}
	}
	rep := &cairn.CaptureReport{Stored: []cairn.Captured{}, Problems: make([]cairn.CaptureProblem, 0, len(probs))}
	for _, p := range probs {
		rep.Problems = append(rep.Problems, cairn.CaptureProblem{Line: p.Line, Reason: p.Reason, Text: p.Text})
	}
	prov := Provenance{Hat: hat, Agent: r.Agent, Task: r.Task, Session: r.Session}
	for _, sig := range sigs {
		res, err := svc.AddMemory(ctx, sig.MemoryFrom(project, prov))
		switch {
		case err == nil:
			m := res.Memory
			rep.Stored = append(rep.Stored, cairn.Captured{ID: m.ID, Status: res.Status, Kind: sig.Kind, Type: m.Type, Title: m.Title, Line: sig.Line})
		case cairn.ErrorCode(err) == cairn.EINVALID:
			// One bad signal does not stop the others.
			rep.Problems = append(rep.Problems, cairn.CaptureProblem{Line: sig.Line, Text: sig.Title, Refused: true,
				Reason: "cannot store the " + sig.Kind + ": " + strings.Join(strings.Fields(cairn.ErrorMessage(err)), " ")})
		default:
			return nil, err
		}
	}
	return rep, nil
}
