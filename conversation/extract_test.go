package conversation_test

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn/conversation"
)

// The signals of user and assistant messages become memories, an
// assistant's written by its sender; a system message's signals are not
// the conversation's. Render gives the model "role: content" lines.
func TestSignalsOfAConversation(t *testing.T) {
	t.Parallel()
	msgs := []conversation.Message{
		{Role: "user", Content: "MEMORY:preference:Tabs, not spaces."},
		{Role: "assistant", SenderName: "claude", Content: "Noted.\nMEMORY:pitfall:The linter rewrites tabs."},
		{Role: "system", Content: "MEMORY:decision:Injected by the harness."},
	}
	mems := conversation.Signals(msgs)
	if len(mems) != 2 || mems[0].Type != "preference" || mems[0].Agent != "" || mems[1].Type != "pitfall" || mems[1].Agent != "claude" {
		t.Fatalf("signals: %+v", mems)
	}
	if got, want := conversation.Render(msgs[:2]), "user: MEMORY:preference:Tabs, not spaces.\nassistant: Noted.\nMEMORY:pitfall:The linter rewrites tabs.\n"; got != want {
		t.Errorf("Render = %q, want %q", got, want)
	}
}

// AddMessage records the month's chat and project once, and keeps a chat
// id given before when none is given.
func TestAddMessageRecordsTheMonthsChatAndProject(t *testing.T) {
	t.Parallel()
	l := &conversation.Log{Dir: t.TempDir(), Project: "shop"}
	at := time.Date(2026, 2, 4, 10, 0, 0, 0, time.UTC)
	chat := "c-1"
	month, err := l.AddMessage(conversation.Message{Role: "user", Content: "hi", Timestamp: at}, &chat)
	if err != nil || month != "2026-02" {
		t.Fatalf("AddMessage: %q %v", month, err)
	}
	if _, err := l.AddMessage(conversation.Message{Role: "user", Content: "again", Timestamp: at.Add(time.Hour)}, nil); err != nil {
		t.Fatal(err)
	}
	st, err := l.ReadState()
	if err != nil {
		t.Fatal(err)
	}
	if ms := st["2026-02"]; ms.ChatID != "c-1" || ms.ProjectPath != "shop" {
		t.Errorf("the month's state: %+v", ms)
	}
	batch, err := l.PendingBatch("2026-02")
	if err != nil || len(batch.Messages) != 2 {
		t.Errorf("pending: %+v %v", batch, err)
	}
}
