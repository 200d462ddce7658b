package hook

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// Claude Code writes its transcript behind the Stop hook: the hook waits
// for the agent's last message to reach the file (written as a JSON
// string, quotes and non-ASCII as Claude Code writes them), and no longer
// than its bound when it never comes. Inputs tried: a message with quotes
// and an accent cut inside the bound, a file that never gets it, a
// missing file, an empty message.
func TestStopWaitsForTheTranscriptToHoldTheLastMessage(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "s.jsonl")
	if err := os.WriteFile(path, []byte(`{"type":"user","message":{"content":"run the tests"}}`+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	msg := `The "seed" step passes now; café tables are loaded and every test of the store package is green again.`
	go func() {
		time.Sleep(150 * time.Millisecond)
		f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
		f.WriteString(`{"type":"assistant","message":{"content":[{"type":"text","text":"The \"seed\" step passes now; café tables are loaded and every test of the store package is green again."}]}}` + "\n")
		f.Close()
	}()
	start := time.Now()
	awaitMessage(context.Background(), path, msg, 5*time.Second)
	if took := time.Since(start); took < 100*time.Millisecond || took > 4*time.Second {
		t.Errorf("returned after %v, want when the message was written (150ms)", took)
	}

	start = time.Now()
	awaitMessage(context.Background(), path, "a message the transcript never holds", 300*time.Millisecond)
	if took := time.Since(start); took < 250*time.Millisecond || took > 3*time.Second {
		t.Errorf("a message never written: returned after %v, want its bound (300ms)", took)
	}
	start = time.Now()
	awaitMessage(context.Background(), filepath.Join(t.TempDir(), "none.jsonl"), msg, 5*time.Second)
	awaitMessage(context.Background(), path, "  ", 5*time.Second)
	if took := time.Since(start); took > time.Second {
		t.Errorf("a missing file or an empty message waited %v", took)
	}
}
