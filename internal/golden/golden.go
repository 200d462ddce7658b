// Package golden compares test output with golden files in testdata.
//
// A test binary that imports it gets the -update flag: `go test ./PKG
// -update` rewrites the golden files instead of comparing, to be run
// after checking that a difference is the one intended.
package golden

import (
	"flag"
	"os"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

// Check fails t when got differs from the content of the file at path
// (or rewrites the file under -update). pkg names the package for the
// hint to regenerate, such as "./contextpack".
func Check(t testing.TB, path, got, pkg string) {
	t.Helper()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run go test %s -update to create it)", err, pkg)
	}
	if got != string(want) {
		t.Errorf("%s differs (run go test %s -update after checking the change)\n--- got ---\n%s\n--- want ---\n%s", path, pkg, got, want)
	}
}
