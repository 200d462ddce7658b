package conversation_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
)

// A turn is due once enough messages are pending; its memories are the
// messages' signals and the model's, in the project and the chat's
// session; a failing model leaves them pending and
// a turn extracted leaves none.
func TestATurnIsExtractedOnceDueAndStaysPendingUntilDone(t *testing.T) {
	t.Parallel()
	l := &conversation.Log{Dir: t.TempDir(), Project: "shop"}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	chat := "c-1"
	add := func(role, text string) *conversation.Turn {
		t.Helper()
		at = at.Add(time.Minute)
		turn, err := l.Add(conversation.Message{Role: role, Content: text, Timestamp: at}, &chat)
		if err != nil {
			t.Fatal(err)
		}
		return turn
	}
	if turn := add("user", "MEMORY:pitfall:The fixture clock is shared."); turn.Due(2) || turn.File != "conversations/shop/2026-05.jsonl" {
		t.Errorf("one message: due %v, file %s", turn.Due(2), turn.File)
	}
	turn := add("assistant", "Noted.")
	if !turn.Due(2) {
		t.Fatal("two messages pending: not due at 2")
	}
	failing := func(context.Context, string) ([]*cairn.Memory, error) { return nil, errors.New("the model is down") }
	mems, modelErr, err := turn.Memories(t.Context(), "shop", chat, failing)
	if err != nil || modelErr == nil || len(mems) != 1 || mems[0].Project != "shop" || mems[0].SessionID != chat {
		t.Fatalf("with a failing model: %+v, %v, %v; want the signal in shop, session c-1, and the model's error", mems, modelErr, err)
	}
	if turn := add("user", "Next."); len(turn.Batch.Messages) != 3 {
		t.Fatalf("not done: %d pending, want 3", len(turn.Batch.Messages))
	} else {
		model := func(_ context.Context, text string) ([]*cairn.Memory, error) {
			return []*cairn.Memory{{Type: "decision", Content: "From the model.", SessionID: "own"}}, nil
		}
		mems, modelErr, err := turn.Memories(t.Context(), "shop", chat, model)
		if err != nil || modelErr != nil || len(mems) != 2 || mems[1].SessionID != "own" || mems[1].Project != "shop" {
			t.Fatalf("with a model: %+v, %v, %v", mems, modelErr, err)
		}
		x, err := turn.Extract(t.Context(), &adder{}, "shop", chat, model)
		if err != nil || x.Pending || x.Counts[cairn.StatusCreated] != 2 {
			t.Fatalf("extracted: %+v, %v; want 2 created, none pending", x, err)
		}
	}
	if turn := add("user", "After."); len(turn.Batch.Messages) != 1 {
		t.Errorf("after an extraction: %d pending, want 1", len(turn.Batch.Messages))
	}
}

// adder stores memories in memory, refusing those whose content is in
// refuse with its error.
type adder struct {
	refuse map[string]error
	stored []*cairn.Memory
}

func (a *adder) AddMemory(_ context.Context, m *cairn.Memory) (*cairn.WriteResult, error) {
	if err := a.refuse[m.Content]; err != nil {
		return nil, err
	}
	a.stored = append(a.stored, m)
	return &cairn.WriteResult{Memory: m, Status: cairn.StatusCreated}, nil
}

// Extract decides whether the messages stay pending: a memory the store
// refuses keeps them pending and the others are still stored; a store
// that cannot be reached ends the extraction; once every memory is
// stored, they are extracted.
func TestExtractKeepsTheMessagesPendingUntilEveryMemoryIsStored(t *testing.T) {
	t.Parallel()
	l := &conversation.Log{Dir: t.TempDir(), Project: "shop"}
	at := time.Date(2026, 5, 1, 12, 0, 0, 0, time.UTC)
	turn := func(text string) *conversation.Turn {
		t.Helper()
		at = at.Add(time.Minute)
		turn, err := l.Add(conversation.Message{Role: "user", Content: text, Timestamp: at}, nil)
		if err != nil {
			t.Fatal(err)
		}
		return turn
	}
	first := turn("MEMORY:pitfall:The fixture clock is shared.\nMEMORY:fix:Give each test its own clock.")
	refusing := &adder{refuse: map[string]error{"The fixture clock is shared.": cairn.Errorf(cairn.EINVALID, "refused")}}
	x, err := first.Extract(t.Context(), refusing, "shop", "s", nil)
	if err != nil || !x.Pending || x.Failed != 1 || len(x.Stored) != 2 || x.Stored[0].Err == nil || x.Stored[1].Result == nil || len(refusing.stored) != 1 {
		t.Fatalf("one memory refused: %+v, %v; want it reported, the other stored, the messages pending", x, err)
	}
	down := &adder{refuse: map[string]error{"The fixture clock is shared.": cairn.Errorf(cairn.EUNAVAILABLE, "the server is gone")}}
	if x, err := turn("More.").Extract(t.Context(), down, "shop", "s", nil); err == nil || x != nil || len(down.stored) != 0 {
		t.Fatalf("a store that cannot be reached: %+v, %v; want its error and nothing more stored", x, err)
	}
	all := &adder{}
	if x, err := turn("Again.").Extract(t.Context(), all, "shop", "s", nil); err != nil || x.Pending || len(all.stored) != 2 {
		t.Fatalf("every memory stored: %+v, %v; want both stored and none pending", x, err)
	}
	if next := turn("After."); len(next.Batch.Messages) != 1 {
		t.Errorf("after an extraction with every memory stored: %d pending, want 1", len(next.Batch.Messages))
	}
}
