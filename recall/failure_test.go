package recall_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture/failure"
	"github.com/cairn-dev/cairn/recall"
	"github.com/cairn-dev/cairn/redact"
)

// The fix of an error is found by the error's line, whatever path,
// number or id it holds this time and wherever the project lies; an
// error that only reads alike is found by words, one never met not at
// all; what the session was shown is left out.
func TestSeenBeforeFindsTheSameErrorWhereverItHappens(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	stored := "tar: ./build/tools-1.2.tar.gz: Cannot open: No such file or directory"
	hook := "PreToolUse:Bash hook error: [sh -c 'cd . && uv run .claude/hooks/guard.py']: BLOCKED: rm is not allowed here"
	fix := add(t, e, &cairn.Memory{Type: "fix", Key: "error:x", Title: stored, Tags: []string{failure.ErrorTag(stored), failure.ErrorTag(hook)},
		Content: "**Error:** `./deploy` failed with:\n" + stored + "\n" + hook + "\n\n**Fix:** ran `make package`", Source: cairn.SourceAutomatic})
	pit := add(t, e, &cairn.Memory{Type: "pitfall", Content: "The staging gateway refuses ssh logins from the VPN address range; connect from the office network."})

	for _, out := range []string{
		"Exit code 2\ntar: /home/bo/work/gw/build/tools-1.3.tar.gz: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now",
		"Exit code 1\nPreToolUse:Bash hook error: [sh -c 'cd /srv/gw && uv run .claude/hooks/guard.py']: BLOCKED: rm is not allowed here",
	} {
		res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure,
			Subject: redact.Paths{Root: "/srv/gw"}.Text(out), Now: lookupNow})
		if err != nil {
			t.Fatal(err)
		}
		if ids := res.IDs(); len(ids) != 1 || ids[0] != fix || !strings.Contains(res.Text, "make package") || !strings.Contains(res.Text, "(id "+fix) {
			t.Errorf("%q: found %v\n%s", out, ids, res.Text)
		}
	}
	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Now: lookupNow,
		Subject: "ssh: connect to the staging gateway port 22: Connection refused from the VPN address range"})
	if err != nil {
		t.Fatal(err)
	}
	if ids := res.IDs(); len(ids) != 1 || ids[0] != pit {
		t.Errorf("an error that reads like a pitfall: %v", ids)
	}
	for _, out := range []string{"Exit code 1", "panic: runtime error: index out of range [3] with length 3 in the parser"} {
		if res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Subject: out, Now: lookupNow}); err != nil || res.Text != "" {
			t.Errorf("%q found %v (%v)", out, res.IDs(), err)
		}
	}
	if err := e.RecordUse(t.Context(), []string{fix}, "s-1"); err != nil {
		t.Fatal(err)
	}
	res, err = recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Now: lookupNow, Session: "s-1", ShownTimes: 1,
		Subject: "tar: /tmp/tools.tar.gz: Cannot open: No such file or directory"})
	if err != nil || res.Text != "" {
		t.Errorf("a fix the session was shown is shown again: %v", res.IDs())
	}
	res, err = recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Now: lookupNow, Session: "s-1", ShownTimes: 2,
		Subject: "tar: /tmp/tools.tar.gz: Cannot open: No such file or directory"})
	if err != nil || len(res.IDs()) != 1 {
		t.Errorf("a fix the session was shown once is not shown again when twice are asked: %v", res.IDs())
	}
}

// Before a command: the fixes tagged with its program and sub-command
// that say how to run it, and the memories that name it; not a fix that
// was only an edit of the code.
func TestCommandFailuresShowHowToRunTheCommand(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	env := add(t, e, &cairn.Memory{Type: "fix", Tags: []string{failure.CommandTag("cargo build")}, Source: cairn.SourceAutomatic,
		Title: "error: the SHOP_DB variable must be set before the queries can be checked", Content: "**Error:** ...\n\n**Fix:** ran it with SHOP_DB=x.db set"})
	add(t, e, &cairn.Memory{Type: "fix", Tags: []string{failure.CommandTag("cargo build")}, Source: cairn.SourceAutomatic,
		Title: "error[E0308]: mismatched types", Content: "**Error:** ...\n\n**Fix:** edited src/main.rs"})
	named := add(t, e, &cairn.Memory{Type: "pitfall", Content: "cargo build needs the OpenCV headers: install them with the system package manager first."})
	add(t, e, &cairn.Memory{Type: "pitfall", Content: "The API returns dates in UTC."})

	res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileCommand, Command: "cd app && cargo build --release 2>&1 | tail", Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	ids := res.IDs()
	if len(ids) != 2 || !(ids[0] == env && ids[1] == named || ids[0] == named && ids[1] == env) || !strings.Contains(res.Text, "Known failures of `cargo build`") {
		t.Errorf("before cargo build: %v\n%s", ids, res.Text)
	}
	if res, _ := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileCommand, Command: "ls -la", Now: lookupNow}); res.Text != "" {
		t.Errorf("before ls: %v", res.IDs())
	}
}

// Fixes that rank alike come in one order, every time: the newest id
// first.
func TestEqualAnswersBeforeACommandComeInOneOrder(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	var ids []string
	for i := range 4 {
		ids = append(ids, add(t, e, &cairn.Memory{Type: "fix", Tags: []string{failure.CommandTag("go test")}, Source: cairn.SourceAutomatic,
			Title: "error: case " + string(rune('a'+i)), Content: "**Error:** ...\n\n**Fix:** ran it with -count=1 (" + string(rune('a'+i)) + ")"}))
	}
	for range 20 {
		res, err := recall.Lookup(t.Context(), e, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileCommand, Command: "go test ./...", Now: lookupNow})
		if err != nil {
			t.Fatal(err)
		}
		if got := res.IDs(); len(got) != 3 || got[0] != ids[3] || got[1] != ids[2] || got[2] != ids[1] {
			t.Fatalf("the answer's order %v, want the newest ids first of %v", got, ids)
		}
	}
}

// countingSearches is a lookup service that counts its searches, which a
// lookup may make at once.
type countingSearches struct {
	recall.LookupService
	n atomic.Int32
}

func (c *countingSearches) Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error) {
	c.n.Add(1)
	return c.LookupService.Search(ctx, q)
}

func (c *countingSearches) searches() int { return int(c.n.Load()) }

// failingSearches is a lookup service whose searches fail: those of the
// fixes with errFixes, the others with errOthers.
type failingSearches struct{ recall.LookupService }

var errFixes, errOthers = errors.New("the fixes' search failed"), errors.New("the other search failed")

func (failingSearches) Search(ctx context.Context, q cairn.Query) ([]cairn.Hit, error) {
	if slices.Contains(q.Types, "fix") {
		return nil, errFixes
	}
	return nil, errOthers
}

// A lookup of an error searches the fixes and the other types at once;
// when both fail, the fixes' error is the answer's, as when they were
// searched one after the other.
func TestALookupOfAnErrorFailsWithTheFixesError(t *testing.T) {
	t.Parallel()
	svc := failingSearches{lookupEngine(t)}
	for range 20 {
		_, err := recall.Lookup(t.Context(), svc, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileLookupError, Subject: "panic: nil map", Limit: 3, Now: lookupNow})
		if !errors.Is(err, errFixes) {
			t.Fatalf("both searches failed: %v, want the fixes' error", err)
		}
	}
}

// After a failure no fix holds the error's line, so the fixes and the
// other memories that read like the error are searched; fixes come first
// and only the first three are shown, so when three fixes read like it
// the other types are not searched (one search, not two) and the answer
// is the same. A lookup of the error by a person counts what it leaves
// out and searches both; with fewer fixes than the limit the others are
// searched and shown.
func TestAfterAFailureOtherTypesAreSearchedOnlyWhenFixesLeaveRoom(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	var fixes []string
	for _, w := range []string{"queue", "mailer", "ledger"} {
		fixes = append(fixes, add(t, e, &cairn.Memory{Type: "fix", Source: cairn.SourceAutomatic,
			Title:   "the " + w + " worker panicked: nil pointer dereference in the invoice batch",
			Content: "**Error:** the " + w + " worker panicked: nil pointer dereference in the invoice batch\n\n**Fix:** ran `make seed-" + w + "`"}))
	}
	pit := add(t, e, &cairn.Memory{Type: "pitfall", Content: "The invoice batch worker panicked with a nil pointer dereference when the ledger was empty."})
	out := "Exit code 2\npanic: the invoice batch worker panicked: nil pointer dereference"

	svc := &countingSearches{LookupService: e}
	res, err := recall.Lookup(t.Context(), svc, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Subject: out, Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if ids := res.IDs(); len(ids) != 3 || slices.Contains(ids, pit) || svc.searches() != 1 {
		t.Errorf("three fixes read like the error: shown %v (fixes %v), %d searches, want the fixes and one search", ids, fixes, svc.searches())
	}

	svc = &countingSearches{LookupService: e}
	res, err = recall.Lookup(t.Context(), svc, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileLookupError, Subject: out, Limit: 3, Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if len(res.IDs()) != 3 || res.Omitted != 1 || svc.searches() != 2 {
		t.Errorf("a lookup of the error: %v, %d omitted, %d searches; want 3, 1 omitted (the pitfall), 2 searches", res.IDs(), res.Omitted, svc.searches())
	}

	svc = &countingSearches{LookupService: e}
	res, err = recall.Lookup(t.Context(), svc, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileFailure, Subject: out, Limit: 5, Now: lookupNow})
	if err != nil {
		t.Fatal(err)
	}
	if ids := res.IDs(); len(ids) != 4 || !slices.Contains(ids, pit) || svc.searches() != 2 {
		t.Errorf("room for five: shown %v, %d searches; want the three fixes and the pitfall, two searches", ids, svc.searches())
	}
}

// countingShown is a lookup service that counts its reads of what a
// session was shown.
type countingShown struct {
	recall.LookupService
	reads int
}

func (c *countingShown) ShownCounts(ctx context.Context, project, session string) (map[string]int, error) {
	c.reads++
	return c.LookupService.ShownCounts(ctx, project, session)
}

// A lookup before a command, or after a failure, that finds no memory
// reads nothing of the session (most commands and errors have none); one
// that finds a memory reads what the session was shown once, and leaves
// out what it was shown.
func TestLookupsReadTheSessionOnlyWhenAMemoryIsFound(t *testing.T) {
	t.Parallel()
	e := lookupEngine(t)
	fix := add(t, e, &cairn.Memory{Type: "fix", Tags: []string{failure.CommandTag("cargo build")}, Source: cairn.SourceAutomatic,
		Title: "error: the SHOP_DB variable must be set", Content: "**Error:** ...\n\n**Fix:** ran it with SHOP_DB=x.db set"})
	for _, req := range []cairn.LookupRequest{
		{Profile: cairn.ProfileCommand, Command: "npm run lint -- --fix", ShownTimes: 1},
		{Profile: cairn.ProfileFailure, Subject: "Exit code 2\npanic: runtime error: index out of range [3] with length 3 in the parser", ShownTimes: 2},
	} {
		svc := &countingShown{LookupService: e}
		req.Project, req.Session, req.Now = "p", "s-1", lookupNow
		res, err := recall.Lookup(t.Context(), svc, req)
		if err != nil || res.Text != "" || svc.reads != 0 {
			t.Errorf("%s %q%q: %v (%v), %d reads of the session, want nothing and none", req.Profile, req.Command, req.Subject, res.IDs(), err, svc.reads)
		}
	}
	ask := func() (*cairn.LookupAnswer, int) {
		svc := &countingShown{LookupService: e}
		res, err := recall.Lookup(t.Context(), svc, cairn.LookupRequest{Project: "p", Profile: cairn.ProfileCommand, Command: "cargo build",
			Session: "s-1", ShownTimes: 1, Now: lookupNow})
		if err != nil {
			t.Fatal(err)
		}
		return res, svc.reads
	}
	if res, reads := ask(); len(res.IDs()) != 1 || res.IDs()[0] != fix || reads != 1 {
		t.Errorf("before cargo build: %v, %d reads of the session, want the fix and one read", res.IDs(), reads)
	}
	if err := e.RecordUse(t.Context(), []string{fix}, "s-1"); err != nil {
		t.Fatal(err)
	}
	if res, reads := ask(); res.Text != "" || reads != 1 {
		t.Errorf("before cargo build, the fix shown: %v, %d reads of the session, want nothing and one read", res.IDs(), reads)
	}
}
