package jsonlmirror_test

import (
	"testing"

	"github.com/cairn-dev/cairn/jsonlmirror"
)

// A relative folder is the project folder's; found only from the working
// directory, it is written there but not registered for the servers.
func TestFolderIsTheProjectsOwnOrOnlyWritten(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		setting, project, wd, dir string
		register                  bool
	}{
		{"", "", "/w", "", false},
		{"", "/p", "/w", "", true}, // the project has no files: said to the servers too
		{"/abs/m", "", "/w", "/abs/m", true},
		{"memory", "/p", "/w", "/p/memory", true},
		{"memory", "", "/w", "/w/memory", false},
	} {
		dir, register := jsonlmirror.Folder(tc.setting, tc.project, tc.wd)
		if dir != tc.dir || register != tc.register {
			t.Errorf("Folder(%q, %q, %q) = %q, %v; want %q, %v", tc.setting, tc.project, tc.wd, dir, register, tc.dir, tc.register)
		}
	}
}
