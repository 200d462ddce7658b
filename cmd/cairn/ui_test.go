package main

// `cairn ui`. Bad situations tried: an unexpected argument, no server
// with CAIRN_NO_SERVER set, a browser that cannot be opened.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"
)

// With no server running, ui starts one and opens its page; with one
// running, it opens that one's; --print and a failing opener print the
// address.
func TestUIStartsTheServerAndOpensItsPage(t *testing.T) {
	t.Parallel()
	c := newServeCLI(t)
	c.env["CAIRN_SERVE_ADDR"] = freeLoopbackAddr(t)
	started := 0
	c.startServer = func(db, project string) error {
		started++
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		m := &Main{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard, Getenv: func(k string) string { return c.env[k] },
			Getwd: func() (string, error) { return c.dir, nil }}
		go func() {
			defer close(done)
			m.Run(ctx, []string{"--db", db, "--project", project, "serve"})
		}()
		t.Cleanup(func() { cancel(); <-done })
		return nil
	}
	var opened []string
	ui := func(open func(string) error, args ...string) result {
		var out, errb strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: &out, Stderr: &errb, Getenv: func(k string) string { return c.env[k] },
			Getwd: func() (string, error) { return c.wd, nil }, StartServer: c.startServer, OpenURL: open}
		code := m.Run(t.Context(), append([]string{"--db", c.db, "--project", c.project, "ui"}, args...))
		return result{code: code, stdout: out.String(), stderr: errb.String()}
	}
	record := func(u string) error { opened = append(opened, u); return nil }
	want := "http://" + c.env["CAIRN_SERVE_ADDR"] + "/"
	if r := ui(record); r.code != 0 || r.stdout != "" || len(opened) != 1 || opened[0] != want || started != 1 {
		t.Fatalf("ui without a server: %v, opened %q, %d started", r, opened, started)
	}
	resp, err := http.Get(opened[0])
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
		t.Errorf("the page: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	if r := ui(record); r.code != 0 || len(opened) != 2 || opened[1] != want || started != 1 {
		t.Errorf("ui with the server running: %v, opened %q, %d started", r, opened, started)
	}
	if r := ui(record, "--print"); r.code != 0 || r.stdout != want+"\n" || len(opened) != 2 {
		t.Errorf("ui --print: %v", r)
	}
	if r := ui(func(string) error { return errors.New("xdg-open is not installed") }); r.code != 0 || r.stdout != want+"\n" || !strings.Contains(r.stderr, "xdg-open is not installed") {
		t.Errorf("ui without a browser: %v", r)
	}
	if r := ui(record, "now"); r.code != 2 || !strings.Contains(r.stderr, `unexpected argument "now"`) {
		t.Errorf("ui now: %v", r)
	}
}

func TestUIWithoutAServerAndCAIRN_NO_SERVERSaysSo(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env["CAIRN_NO_SERVER"] = "1"
	if r := c.run("", "ui"); r.code != 1 || !strings.Contains(r.stderr, "CAIRN_NO_SERVER") {
		t.Errorf("%v", r)
	}
}
