package server

import (
	"io"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// The folder the server registers for a project's JSON Lines files when
// its settings are stored follows jsonlmirror.Folder, except that no
// folder set clears the registration even where the project's folder is
// not known. Tried: a relative folder with and without the project's
// folder, an absolute one, none, and a server other machines reach.
func TestStoredSettingsRegisterTheMirrorFolder(t *testing.T) {
	eng := openEngine(t, filepath.Join(t.TempDir(), "m.db"))
	ctx := t.Context()
	registered := func(project string) (string, bool) {
		t.Helper()
		var dir string
		var found bool
		err := eng.Store().View(ctx, func(tx cairn.Tx) error {
			ss, err := tx.FindJobStates(ctx, "mirror")
			for _, s := range ss {
				if s.Project == project {
					dir, found = s.Data, true
				}
			}
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return dir, found && dir != ""
	}
	settings := func(dir, folder string) *cairn.ProjectSettings {
		s := cairn.DefaultSettings()
		s.Export.JSONLDir = dir
		return &cairn.ProjectSettings{Settings: s, Folder: folder}
	}
	stored := mirrorFolders(eng, false, io.Discard)

	stored(ctx, "p", settings("mem", "/work/p"))
	if dir, ok := registered("p"); !ok || dir != filepath.Join("/work/p", "mem") {
		t.Fatalf("relative folder in a known project folder: registered %q, %v", dir, ok)
	}
	stored(ctx, "p", settings("other", "")) // relative to a folder not known: left as it was
	if dir, _ := registered("p"); dir != filepath.Join("/work/p", "mem") {
		t.Fatalf("a relative folder with no project folder changed the registration to %q", dir)
	}
	stored(ctx, "p", settings("/abs/mem", ""))
	if dir, _ := registered("p"); dir != "/abs/mem" {
		t.Fatalf("absolute folder: registered %q", dir)
	}
	stored(ctx, "p", settings("", "")) // none set: cleared
	if dir, ok := registered("p"); ok {
		t.Fatalf("no folder set left %q registered", dir)
	}
	mirrorFolders(eng, true, io.Discard)(ctx, "q", settings("/abs/q", ""))
	if dir, ok := registered("q"); ok {
		t.Fatalf("a server other machines reach registered %q", dir)
	}
}
