package sessionstate_test

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/sessionstate"
)

func TestAnOverrideIsKeptPerProjectAndTakenOnce(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "sub", "state.json")
	at := time.Date(2026, 5, 1, 0, 0, 0, 0, time.UTC)
	if err := sessionstate.Keep(path, "p", sessionstate.Override{Keywords: []string{"full history"}, At: at}); err != nil {
		t.Fatal(err)
	}
	if err := sessionstate.Keep(path, "q", sessionstate.Override{Keywords: []string{"eco mode"}, At: at}); err != nil {
		t.Fatal(err)
	}
	o, ok, err := sessionstate.Take(path, "p")
	if err != nil || !ok || !slices.Equal(o.Keywords, []string{"full history"}) || !o.At.Equal(at) {
		t.Errorf("take p: %+v %v %v", o, ok, err)
	}
	if _, ok, _ := sessionstate.Take(path, "p"); ok {
		t.Error("taken twice")
	}
	if o, ok, _ := sessionstate.Take(path, "q"); !ok || o.Keywords[0] != "eco mode" {
		t.Errorf("q: %+v", o)
	}
	// Bad input tried: a file that is not JSON reads as empty and is
	// replaced by the next Keep.
	if err := os.WriteFile(path, []byte("{garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, ok, err := sessionstate.Take(path, "p"); ok || err != nil {
		t.Errorf("garbage: %v %v", ok, err)
	}
	if err := sessionstate.Keep(path, "p", sessionstate.Override{Keywords: []string{"x"}}); err != nil {
		t.Fatal(err)
	}
	if _, ok, _ := sessionstate.Take(path, "p"); !ok {
		t.Error("not kept over a bad file")
	}
}
