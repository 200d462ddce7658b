package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// cairn serve applies the lifecycle when it is due, by itself: a memory
// whose time to live ran out is removed without anyone running cleanup,
// and a bad CAIRN_SERVE_CLEANUP_AFTER is said and falls back.
func TestServeCleansUpWhenDue(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c.db = filepath.Join(dir, "c.db")
	c.env["CAIRN_NO_SERVER"] = "1"
	old := c.add("--now", "2020-01-01T00:00:00Z", "--type", "note", "--ttl", "1h", "A note that lived an hour in 2020.")
	kept := c.add("--type", "decision", "Chose SQLite for local storage.")
	c.env["CAIRN_SERVE_CLEANUP_AFTER"] = "10ms"
	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan string, 1)
	go func() {
		var o, e strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e,
			Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
		m.Run(ctx, []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off"})
		done <- e.String()
	}()
	var log string
	t.Cleanup(func() {
		cancel()
		if log == "" {
			<-done
		}
	})
	for deadline := time.Now().Add(15 * time.Second); ; time.Sleep(25 * time.Millisecond) {
		if r := c.run("", "show", old); r.code != 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the expired memory %s is still there", old)
		}
	}
	if r := c.run("", "show", kept); r.code != 0 {
		t.Errorf("the live memory was removed: %v", r)
	}
	cancel()
	log = <-done
	if !strings.Contains(log, "daily cleanup of project "+c.project) {
		t.Errorf("the server's log does not say it cleaned up: %q", log)
	}
}
