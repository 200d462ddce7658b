package main

// The command hooks of the events that add context hand their payload to
// the running server's hook route on its Unix socket. Bad situations
// tried: a server without that route (an older cairn: 404) and one that
// refuses the call (503), after which the hook answers as before; the
// answer is passed through as the server sent it.

import (
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/server"
	"github.com/cairn-dev/cairn/wire"
)

// serveSocket answers the socket of the database db with h until the test
// ends: a stand-in for a server, for what the hook does with its answers.
func serveSocket(t *testing.T, db string, h http.Handler) {
	t.Helper()
	sock := server.SocketPath(db)
	if err := os.MkdirAll(filepath.Dir(sock), 0o700); err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	hs := &http.Server{Handler: h}
	go hs.Serve(ln)
	t.Cleanup(func() { hs.Close() })
}

type hookRequest struct {
	path   string
	header http.Header
	body   string
}

// A command hook of UserPromptSubmit hands the payload, as it read it, to
// the hook route with what its flags and environment say (the project,
// the task, the clock, the time it waits) as an http hook's headers, and
// prints the server's answer as it is.
func TestHookHandsItsPayloadToTheServersHookRoute(t *testing.T) {
	t.Parallel()
	c := newHookCLI(t)
	calls := make(chan hookRequest, 4)
	answer := `{"hookSpecificOutput":{"hookEventName":"UserPromptSubmit","additionalContext":"the server's block"}}` + "\n"
	serveSocket(t, c.db, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		calls <- hookRequest{r.URL.Path, r.Header.Clone(), string(b)}
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, answer)
	}))
	c.env["CAIRN_TASK"] = "7"
	in := c.payload("user-prompt-submit.json")
	r := c.raw(in, "--db", c.db, "--project", "authsvc", "hook", "claude", "user-prompt-submit")
	if r.code != 0 || r.stdout != answer || !r.served {
		t.Fatalf("want the server's answer as it is: %v", r)
	}
	got := <-calls
	now, _ := wire.ParseTime(hookNow)
	for k, want := range map[string]string{"X-Cairn-Project": "authsvc", "X-Cairn-Task": "7", wire.NowHeader: wire.FormatTime(now), "X-Cairn-Timeout": "3"} {
		if got.header.Get(k) != want {
			t.Errorf("%s: %q, want %q", k, got.header.Get(k), want)
		}
	}
	if got.path != "/hooks/claude/UserPromptSubmit" || got.body != in {
		t.Errorf("posted %s with %q, want the payload as read", got.path, got.body)
	}
	// Without --project or CAIRN_PROJECT the server takes the project from
	// the payload's folder, as the hook would: no header says one.
	r = c.raw(in, "--db", c.db, "hook", "claude", "user-prompt-submit")
	if got := <-calls; r.stdout != answer || got.header.Get("X-Cairn-Project") != "" {
		t.Errorf("no project given: %v, X-Cairn-Project %q", r, got.header.Get("X-Cairn-Project"))
	}
	// Codex's hook goes to Codex's route.
	if r := c.raw(in, "--db", c.db, "hook", "codex", "user-prompt-submit"); r.stdout != answer {
		t.Errorf("codex: %v", r)
	}
	if got := <-calls; got.path != "/hooks/codex/UserPromptSubmit" {
		t.Errorf("codex's hook posted to %s", got.path)
	}
	// --hat and CAIRN_NO_SERVER keep the hook's own way.
	c.env["CAIRN_NO_SERVER"] = "1"
	c.raw(in, "--db", c.db, "hook", "claude", "user-prompt-submit")
	delete(c.env, "CAIRN_NO_SERVER")
	c.raw(in, "--db", c.db, "hook", "claude", "user-prompt-submit", "--hat", "reviewer")
	select {
	case got := <-calls:
		if got.path == "/hooks/claude/UserPromptSubmit" {
			t.Errorf("a hook with CAIRN_NO_SERVER or --hat used the hook route")
		}
	case <-time.After(100 * time.Millisecond):
	}
}

// A server that does not take the call (an older cairn without the route,
// or one stopping) costs nothing: the hook answers as it did before, the
// same block as without a server.
func TestHookAnswersItselfWhenTheServerDoesNotTakeTheCall(t *testing.T) {
	t.Parallel()
	for _, status := range []int{http.StatusNotFound, http.StatusServiceUnavailable} {
		alone := newHookCLI(t)
		alone.env["CAIRN_NO_SERVER"] = "1"
		want := alone.hook(alone.payload("user-prompt-submit.json"), "user-prompt-submit")
		if want.code != 0 || want.stdout == "" {
			t.Fatalf("without a server: %v", want)
		}
		c := newHookCLI(t)
		serveSocket(t, c.db, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Error(w, "not here", status)
		}))
		if r := c.hook(c.payload("user-prompt-submit.json"), "user-prompt-submit"); r.code != 0 || r.stdout != want.stdout {
			t.Errorf("a server answering %d: %v\nwant:\n%s", status, r, want.stdout)
		}
	}
}
