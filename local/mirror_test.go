package local_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/local"
)

// The surface of a command that no server follows keeps the project's
// JSON Lines files itself: once its work is done, after a write (and
// only then: a use is no change), it registers the folder for the
// servers' mirror and rewrites the files.
func TestFinishKeepsTheJSONLFilesAfterAWriteOnly(t *testing.T) {
	t.Parallel()
	eng := newEngine(t)
	dir := filepath.Join(t.TempDir(), "memory")
	var log bytes.Buffer
	open := func() local.Project {
		return local.New(eng, "p", &local.Options{Mirror: &local.Mirror{Dir: dir, Register: true, Log: &log}})
	}
	registered := func() string {
		t.Helper()
		var got string
		err := eng.Store().View(t.Context(), func(tx cairn.Tx) error {
			ss, err := tx.FindJobStates(t.Context(), "mirror")
			for _, s := range ss {
				if s.Project == "p" {
					got = s.Data
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	file := filepath.Join(dir, "decision.jsonl")

	app := open()
	app.Finish(t.Context())
	if _, err := os.Stat(file); !os.IsNotExist(err) || registered() != "" {
		t.Fatalf("nothing written, yet the files were (%v) or the folder registered (%q)", err, registered())
	}
	add(t, app, "p", "Chose dayjs over moment.js for bundle size.")
	app.Finish(t.Context())
	if b, _ := os.ReadFile(file); !strings.Contains(string(b), "dayjs") || registered() != dir {
		t.Fatalf("after a write: %q, registered %q", b, registered())
	}

	// A block that records its use changes no file.
	os.Remove(file)
	app = open()
	if _, err := app.Context(t.Context(), cairn.ContextCall{ContextRequest: cairn.ContextRequest{Prompt: "dayjs bundle"}, Record: true}); err != nil {
		t.Fatal(err)
	}
	app.Finish(t.Context())
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("the files were rewritten after a use only: %v", err)
	}
	// Without the option, a write leaves the files to a server.
	plain := local.New(eng, "p", nil)
	add(t, plain, "p", "Dates are stored in UTC.")
	plain.Finish(t.Context())
	if _, err := os.Stat(file); !os.IsNotExist(err) {
		t.Errorf("a surface without a mirror wrote the files: %v", err)
	}
	if log.Len() != 0 {
		t.Errorf("failures said: %s", log.String())
	}
}
