package conversation

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn"
)

// Model extracts memories from a conversation's text (package extract's
// Client, without its usage).
type Model func(ctx context.Context, text string) ([]*cairn.Memory, error)

// Turn is a message just added to a project's log, and the messages of
// its month not yet extracted.
type Turn struct {
	log   *Log
	Month string
	// File is the month's file, relative to the data folder:
	// conversations/<project's folder>/<month>.jsonl.
	File string
	// Batch holds the month's pending messages, and the lines of it
	// that could not be read (skipped).
	Batch *Batch
}

// Add appends msg to the project's log, after adopting the project's
// months of the single log earlier versions kept (AdoptLegacy), records
// the chat it belongs to (chat, when not nil), and returns the turn.
func (l *Log) Add(msg Message, chat *string) (*Turn, error) {
	if err := l.AdoptLegacy(); err != nil {
		return nil, fmt.Errorf("moving the project's months of the earlier single conversation log: %w", err)
	}
	month, err := l.AddMessage(msg, chat)
	if err != nil {
		return nil, err
	}
	batch, err := l.PendingBatch(month)
	if err != nil {
		return nil, err
	}
	file := filepath.ToSlash(filepath.Join("conversations", FolderName(l.Project), month+".jsonl"))
	return &Turn{log: l, Month: month, File: file, Batch: batch}, nil
}

// Due reports whether the pending messages are to be extracted now: at
// least every of them.
func (t *Turn) Due(every int) bool { return len(t.Batch.Messages) >= every }

// Memories returns the memories the pending messages hold, in project:
// their signals (Signals) and, when model is not nil, what it extracts
// from them (Render), each in session unless it names its own. When the
// model fails, modelErr says why and the signals come without its
// memories: the messages are then to stay pending, and are tried again
// next time (Extract stores them and decides). err is the context's,
// when it ended.
func (t *Turn) Memories(ctx context.Context, project, session string, model Model) (mems []*cairn.Memory, modelErr, err error) {
	mems = Signals(t.Batch.Messages)
	if model != nil {
		got, err := model(ctx, Render(t.Batch.Messages))
		switch {
		case err == nil:
			mems = append(mems, got...)
		case ctx.Err() != nil:
			return nil, nil, ctx.Err()
		default:
			modelErr = err
		}
	}
	for _, m := range mems {
		m.Project = project
		if m.SessionID == "" {
			m.SessionID = session
		}
	}
	return mems, modelErr, nil
}

// Adder stores a memory, as cairn.Service's AddMemory does: the
// surface of the project, here or on a server.
type Adder interface {
	AddMemory(ctx context.Context, m *cairn.Memory) (*cairn.WriteResult, error)
}

// Stored is what became of one memory a turn extracted: the result of
// storing it, or (Err) why it could not be stored.
type Stored struct {
	Memory *cairn.Memory
	Result *cairn.WriteResult // nil when Err is set
	Err    error
}

// Extraction is what Extract extracted and stored.
type Extraction struct {
	// Stored holds every memory extracted, in the order stored.
	Stored []Stored
	// ModelErr is why the model failed: the signals were stored without
	// its memories.
	ModelErr error
	// Failed is how many memories could not be stored.
	Failed int
	// Counts are the stored memories by status (cairn.StatusCreated …).
	Counts map[string]int
	// Pending reports that the messages stay pending: the model failed
	// or a memory could not be stored, and the next turn extracts them
	// again (what was stored twice folds into one memory, the same
	// content). When false, they are marked extracted.
	Pending bool
}

// Extract extracts the memories of the pending messages (Memories),
// stores them with svc one after the other in project and session, and
// marks the messages extracted when every one was stored and the model
// did not fail; otherwise they stay pending. A memory svc refuses is
// reported in its Stored and the others are still stored. err ends the
// extraction with the messages pending: the context's, when it ended; a
// store that cannot be reached (cairn.EUNAVAILABLE), which would fail the
// rest too; or the failure to mark the messages extracted.
func (t *Turn) Extract(ctx context.Context, svc Adder, project, session string, model Model) (*Extraction, error) {
	mems, modelErr, err := t.Memories(ctx, project, session, model)
	if err != nil {
		return nil, err
	}
	x := &Extraction{ModelErr: modelErr, Counts: map[string]int{}, Stored: make([]Stored, 0, len(mems))}
	for _, mem := range mems {
		res, err := svc.AddMemory(ctx, mem)
		switch {
		case err == nil:
			x.Counts[res.Status]++
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case cairn.ErrorCode(err) == cairn.EUNAVAILABLE && !errors.Is(err, context.Canceled):
			return nil, err
		default:
			x.Failed++
		}
		x.Stored = append(x.Stored, Stored{Memory: mem, Result: res, Err: err})
	}
	x.Pending = x.ModelErr != nil || x.Failed > 0
	if x.Pending {
		return x, nil
	}
	if err := t.log.MarkExtracted(t.Month, t.Batch.To); err != nil {
		return nil, err
	}
	return x, nil
}
