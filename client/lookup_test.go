package client_test

import (
	"net/http"
	"net/http/httptest"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/httpapi"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/recall"
)

// A lookup through a client is answered where the memories are: one
// request, whatever the server reads to answer it (a command's lookup
// lists up to a thousand fixes and sessions), and the same answer as the
// engine's own.
func TestALookupIsOneRequestAnsweredByTheServer(t *testing.T) {
	t.Parallel()
	s := startServer(t, false)
	for i := range 40 {
		add(t, s.eng, "alpha", "session", "**Asked:** run the tests "+string(rune('a'+i%26))+"\n\n**Failed, then passed:**\n- `go test ./...`")
	}
	fix, err := s.eng.WithProject("alpha").AddMemory(t.Context(), &cairn.Memory{Project: "alpha", Type: "fix",
		Title: "Fix for `go test ./store/...` failure", Content: "**Problem:** FAIL TestLock: database is locked\n\n**Fix:** edited store/lock.go",
		FileRefs: []string{"store/lock.go"}})
	if err != nil {
		t.Fatal(err)
	}
	var requests atomic.Int64
	api := httpapi.New(httpapi.Options{Service: func(p string, _ time.Time) httpapi.Service { return local.New(s.eng, p, nil) }})
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		api.ServeHTTP(w, r)
	}))
	t.Cleanup(ts.Close)
	c, err := client.New(ts.URL, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := c.Project("alpha")
	for _, req := range []cairn.LookupRequest{
		{Kind: cairn.LookupCommand, Subject: "go test"},
		{Kind: cairn.LookupFile, Subject: "store/lock.go"},
		{Kind: cairn.LookupError, Subject: "FAIL TestLock: database is locked"},
		{Profile: cairn.ProfileFailure, Subject: "--- FAIL: TestLock (0.01s)\n    lock_test.go:12: database is locked"},
		{Profile: cairn.ProfileCommand, Command: "go test ./store/... -run TestLock"},
	} {
		before := requests.Load()
		got, err := p.Lookup(t.Context(), req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		if n := requests.Load() - before; n != 1 {
			t.Errorf("%+v took %d requests, want 1", req, n)
		}
		req.Project = "alpha"
		want, err := recall.Lookup(t.Context(), s.eng.WithProject("alpha"), req)
		if err != nil {
			t.Fatal(err)
		}
		if got.Text != want.Text || len(got.Items) != len(want.Items) || len(got.Commands) != len(want.Commands) || got.Omitted != want.Omitted {
			t.Errorf("%+v through the client:\n%s\nthe engine's:\n%s", req, got.Text, want.Text)
		}
		if got.Text == "" {
			t.Errorf("%+v found nothing", req)
		}
	}
	if got, err := p.Lookup(t.Context(), cairn.LookupRequest{Kind: cairn.LookupFile, Subject: "store/lock.go"}); err != nil || len(got.Items) != 1 || got.Items[0].Memory.ID != fix.Memory.ID {
		t.Errorf("the file's lookup: %+v, %v", got, err)
	}
	// A lookup that asks records the use of what it shows, in its
	// session, in the same request; one that does not, records nothing.
	used := func() int {
		m, err := s.eng.FindMemoryByID(t.Context(), fix.Memory.ID)
		if err != nil {
			t.Fatal(err)
		}
		return m.UseCount
	}
	before := used()
	n := requests.Load()
	if _, err := p.Lookup(t.Context(), cairn.LookupRequest{Kind: cairn.LookupFile, Subject: "store/lock.go", Session: "s-rec", Record: true}); err != nil {
		t.Fatal(err)
	}
	if used() != before+1 || requests.Load()-n != 1 {
		t.Errorf("a recorded lookup: use count %d from %d in %d requests", used(), before, requests.Load()-n)
	}
	// Bad input tried: an unknown kind, an empty subject, a profile that
	// makes a context block.
	for _, req := range []cairn.LookupRequest{{Kind: "colour", Subject: "x"}, {Kind: cairn.LookupFile, Subject: " "}, {Profile: cairn.ProfileEdit, Subject: "a.go"}} {
		if _, err := p.Lookup(t.Context(), req); cairn.ErrorCode(err) != cairn.EINVALID {
			t.Errorf("%+v: %v, want EINVALID", req, err)
		}
	}
}
