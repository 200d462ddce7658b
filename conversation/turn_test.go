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
// session; a failing model leaves them pending (Done is not called) and
// a turn that is done leaves none.
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
		if err := turn.Done(); err != nil {
			t.Fatal(err)
		}
	}
	if turn := add("user", "After."); len(turn.Batch.Messages) != 1 {
		t.Errorf("after Done: %d pending, want 1", len(turn.Batch.Messages))
	}
}
