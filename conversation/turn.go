package conversation

import (
	"context"
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
// next time. err is the context's, when it ended.
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

// Done marks the pending messages extracted. Call it once every memory
// of Memories is stored and the model did not fail: until then they stay
// pending, and the next turn extracts them again (what was stored twice
// folds into one memory, the same content).
func (t *Turn) Done() error { return t.log.MarkExtracted(t.Month, t.Batch.To) }
