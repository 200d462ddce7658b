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
	rep := newReport(probs)
	prov := Provenance{Hat: hat, Agent: r.Agent, Task: r.Task, Session: r.Session}
	for _, sig := range sigs {
		if err := rep.add(ctx, svc, sig.MemoryFrom(project, prov), sig.Kind, sig.Kind, sig.Line); err != nil {
			return nil, err
		}
	}
	return rep.CaptureReport, nil
}

// RecordTask is cairn.TaskService's RecordTaskEvent over svc, in project:
// what ev stores (TaskEvent.Memories), in order.
func RecordTask(ctx context.Context, svc Adder, project string, ev cairn.TaskEvent) (*cairn.TaskReport, error) {
	if err := ev.Validate(); err != nil {
		return nil, err
	}
	te := TaskEvent(ev)
	te.Text = strings.TrimSpace(te.Text)
	mems := te.Memories(project)
	res, err := svc.AddMemory(ctx, mems.Event)
	if err != nil {
		return nil, err
	}
	rep := newReport(mems.Problems)
	for _, lm := range mems.Learned {
		if err := rep.add(ctx, svc, lm, "learned", "learned "+lm.Type, 0); err != nil {
			return nil, err
		}
	}
	for _, sig := range mems.Signals {
		if err := rep.add(ctx, svc, sig.MemoryFrom(project, te.Provenance()), sig.Kind, sig.Kind, sig.Line); err != nil {
			return nil, err
		}
	}
	return &cairn.TaskReport{Event: captured(res, "event", 0), Stored: rep.Stored, Problems: rep.Problems}, nil
}

// report is a capture's report as it is made.
type report struct{ *cairn.CaptureReport }

// newReport is a report of nothing stored yet, with the lines probs
// could not read.
func newReport(probs []Problem) report {
	rep := &cairn.CaptureReport{Stored: []cairn.Captured{}, Problems: make([]cairn.CaptureProblem, 0, len(probs))}
	for _, p := range probs {
		rep.Problems = append(rep.Problems, cairn.CaptureProblem{Line: p.Line, Reason: p.Reason, Text: p.Text})
	}
	return report{rep}
}

// add stores m with svc and reports it as kind from line; a memory
// refused as invalid is reported as a Refused problem (the what) and
// does not stop the others. Any other failure is returned.
func (rep report) add(ctx context.Context, svc Adder, m *cairn.Memory, kind, what string, line int) error {
	res, err := svc.AddMemory(ctx, m)
	switch {
	case err == nil:
		rep.Stored = append(rep.Stored, captured(res, kind, line))
	case cairn.ErrorCode(err) == cairn.EINVALID:
		rep.Problems = append(rep.Problems, refused(what, m.Title, line, err))
	default:
		return err
	}
	return nil
}

// captured is what became of a memory stored from line of the output.
func captured(res *cairn.WriteResult, kind string, line int) cairn.Captured {
	m := res.Memory
	return cairn.Captured{ID: m.ID, Status: res.Status, Kind: kind, Type: m.Type, Title: m.Title, Line: line}
}

// refused is the problem of a memory (the what, titled title) the
// service refused to store with err.
func refused(what, title string, line int, err error) cairn.CaptureProblem {
	return cairn.CaptureProblem{Line: line, Text: title, Refused: true,
		Reason: "cannot store the " + what + ": " + strings.Join(strings.Fields(cairn.ErrorMessage(err)), " ")}
}
