package main

// The bounds of `cairn serve`. Bad clients tried: sessions for many
// distinct ?project= values (state must stay bounded), a client that
// sends half its headers and stalls, one that sends half its body and
// stalls, more connections than the cap; and a server SIGKILLed while its
// database refuses writes (the use records it can lose are bounded).

import (
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/recall"
)

// openSession opens c's database in process, as a server does, until the
// test ends.
func (c *cli) openSession() (*Main, *session) {
	c.t.Helper()
	m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard,
		Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.dir, nil }}
	s, err := m.open(c.t.Context(), &globals{db: c.db, project: c.project}, false)
	if err != nil {
		c.t.Fatal(err)
	}
	c.t.Cleanup(func() { s.Close() })
	return m, s
}

// startMCPHTTP serves MCP over HTTP in process, for the database of a
// fresh cli, with lim (conns: the listener's cap).
func startMCPHTTP(t *testing.T, lim httpLimits) (*mcpHTTP, *httptest.Server) {
	t.Helper()
	c := newCLI(t)
	c.ok("add", "--type", "pitfall", "The flaky auth test shares one fake clock.")
	m, s := c.openSession()
	mh, err := newMCPHTTP(m, s, s.recordUse, c.project)
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config = newHTTPServer(mh, nil, lim)
	if lim.conns > 0 {
		ts.Listener = &limitListener{Listener: ts.Listener, max: lim.conns}
	}
	ts.Start()
	t.Cleanup(ts.Close)
	return mh, ts
}

// Sessions for more projects than the server keeps: the oldest sessions
// are closed and the servers dropped, so the state stays bounded; the
// newest sessions still work.
func TestServeKeepsBoundedMCPStateForManyProjects(t *testing.T) {
	t.Parallel()
	mh, ts := startMCPHTTP(t, defaultHTTPLimits)
	var sessions []*mcp.ClientSession
	for i := range maxMCPSessions + 16 {
		cs := mcpClient(t, &mcp.StreamableClientTransport{Endpoint: fmt.Sprintf("%s/mcp?project=p%03d", ts.URL, i)})
		t.Cleanup(func() { cs.Close() })
		sessions = append(sessions, cs)
	}
	live, servers := mh.counts()
	if live > maxMCPSessions || servers > maxProjectServers {
		t.Fatalf("%d sessions and %d project servers live; at most %d and %d expected", live, servers, maxMCPSessions, maxProjectServers)
	}
	if _, err := sessions[0].ListTools(t.Context(), nil); err == nil {
		t.Error("the oldest session still answers after more than the cap were opened")
	}
	if _, err := sessions[len(sessions)-1].CallTool(t.Context(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "clock"}}); err != nil {
		t.Errorf("the newest session: %v", err)
	}
}

// readUntilClosed reads from conn until the server closes it, and fails
// the test when it is still open after a generous while.
func readUntilClosed(t *testing.T, conn net.Conn, what string) {
	t.Helper()
	conn.SetReadDeadline(time.Now().Add(20 * time.Second))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Errorf("%s: the server kept the connection open", what)
	}
}

func TestServeClosesSlowAndSurplusHTTPConnections(t *testing.T) {
	t.Parallel()
	lim := httpLimits{header: 200 * time.Millisecond, body: 200 * time.Millisecond, idle: 200 * time.Millisecond, conns: 3}
	_, ts := startMCPHTTP(t, lim)
	addr := ts.Listener.Addr().String()
	dial := func() net.Conn {
		t.Helper()
		c, err := net.Dial("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Close() })
		return c
	}
	// Half the headers, then nothing.
	slowHead := dial()
	fmt.Fprintf(slowHead, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
	// All the headers and half the body, then nothing.
	slowBody := dial()
	fmt.Fprintf(slowBody, "POST /mcp HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\nContent-Length: 200\r\n\r\n{\"jsonrpc\":", addr)
	// A third fills the cap; a fourth is over it.
	full := dial()
	over := dial()
	readUntilClosed(t, over, "a connection over the cap")
	readUntilClosed(t, slowHead, "a client stalling in its headers")
	readUntilClosed(t, slowBody, "a client stalling in its body")
	readUntilClosed(t, full, "an idle connection")
}

// A server killed with SIGKILL loses only the use records it had not
// written, and it lets no more than useMaxUnwritten contexts be answered
// while their uses wait: here the database refuses every write (another
// connection holds its write lock), so no use can be written at all, and
// the contexts answered before the server holds them back are the most a
// kill can lose.
func TestBinaryServeKilledLosesABoundedNumberOfUses(t *testing.T) {
	needBinary(t)
	t.Parallel()
	ctx := t.Context()
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	db := filepath.Join(dir, "c.db")
	if r := runBin(ctx, dir, "", "--db", db, "--project", "p", "add", "--type", "pitfall", "The flaky auth test shares one fake clock."); r.code != 0 {
		t.Fatalf("%v", r)
	}
	cmd := exec.Command(cairnBin, "--db", db, "--project", "p", "serve", "--addr", "off")
	cmd.Dir, cmd.Env = dir, binEnv(dir)
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	t.Cleanup(func() { cmd.Process.Kill(); <-exited })
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		if _, err := askServer(db+".sock", opStatus); err == nil {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("cairn serve did not answer")
		}
	}

	lockDB, err := sql.Open("sqlite", db)
	if err != nil {
		t.Fatal(err)
	}
	defer lockDB.Close()
	conn, err := lockDB.Conn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.ExecContext(ctx, "BEGIN IMMEDIATE"); err != nil {
		t.Fatal(err)
	}

	// Contexts one after the other until one is not answered within 2 s.
	cl, err := client.New("unix:"+db+".sock", &client.Options{Timeout: 2 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	answered := 0
	for answered < 4*useMaxUnwritten {
		a, err := cl.Project("p").Context(ctx, recall.Call{Request: recall.Request{Project: "p", Prompt: "flaky clock"}, Record: true})
		if err != nil {
			break // held back
		}
		if !strings.Contains(a.Text, "fake clock") {
			t.Fatalf("context: %+v", a)
		}
		answered++
	}
	cmd.Process.Signal(syscall.SIGKILL)
	<-exited
	if _, err := conn.ExecContext(ctx, "ROLLBACK"); err != nil {
		t.Fatal(err)
	}
	var used int
	if err := conn.QueryRowContext(ctx, "SELECT coalesce(sum(use_count), 0) FROM memories").Scan(&used); err != nil {
		t.Fatal(err)
	}
	t.Logf("%d contexts answered while writes were refused", answered)
	if answered == 0 || answered > useMaxUnwritten {
		t.Errorf("%d contexts were answered while no use could be written (%d recorded); a kill may lose at most %d", answered, used, useMaxUnwritten)
	}
}
