package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestServeKeepsThePerTypeJSONLFilesUpToDate(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	dir, err := os.MkdirTemp("", "cs")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	c.db = filepath.Join(dir, "c.db")
	out := filepath.Join(t.TempDir(), "memory")
	writeConfigFile(t, filepath.Join(c.dir, ".config", "cairn", "cairn.toml"), "[export]\njsonl_dir = \""+out+"\"\n")
	c.ok("add", "--type", "decision", "Chose dayjs over moment.js for bundle size")

	ctx, cancel := context.WithCancel(t.Context())
	done := make(chan int, 1)
	go func() {
		var o, e strings.Builder
		m := &Main{Stdin: strings.NewReader(""), Stdout: &o, Stderr: &e,
			Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.wd, nil }}
		done <- m.Run(ctx, []string{"--db", c.db, "--project", c.project, "serve", "--addr", "off"})
	}()
	t.Cleanup(func() { cancel(); <-done })
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		for deadline := time.Now().Add(15 * time.Second); !ok(); time.Sleep(25 * time.Millisecond) {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
		}
	}
	waitFor("decision.jsonl at start", func() bool { return strings.Contains(read("decision.jsonl"), "dayjs") })
	// A write by another process (this CLI, on the database itself).
	c.env["CAIRN_NO_SERVER"] = "1"
	c.ok("add", "--type", "pitfall", "The sandbox refuses refunds on test cards")
	waitFor("pitfall.jsonl after the write", func() bool { return strings.Contains(read("pitfall.jsonl"), "refunds") })
}

// Without a server, each write a command makes on the database itself
// rewrites the files once, so they are never behind.
func TestJSONLFilesFollowWritesWithoutAServer(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.env["CAIRN_NO_SERVER"] = "1"
	out := filepath.Join(t.TempDir(), "memory")
	writeConfigFile(t, filepath.Join(c.dir, ".config", "cairn", "cairn.toml"), "[export]\njsonl_dir = \""+out+"\"\n")
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(out, name)); return string(b) }
	id := c.add("--type", "pitfall", "The sandbox refuses refunds on test cards")
	if !strings.Contains(read("pitfall.jsonl"), "refunds") {
		t.Fatalf("pitfall.jsonl after add: %q", read("pitfall.jsonl"))
	}
	c.ok("rm", id)
	if _, err := os.Stat(filepath.Join(out, "pitfall.jsonl")); !os.IsNotExist(err) {
		t.Errorf("pitfall.jsonl still there after its only memory was deleted: %q", read("pitfall.jsonl"))
	}
}

// A server started in another folder (as a hook starts one, next to the
// database) keeps the files of a project whose folder registered them:
// before, a server kept its own project's files only. The project's
// writes go through the server, which follows them.
func TestServeKeepsTheJSONLFilesOfAnotherProjectItsFolderRegistered(t *testing.T) {
	t.Parallel()
	c := newServeCLI(t)
	web := filepath.Join(c.dir, "web")
	writeConfigFile(t, filepath.Join(web, ".cairn", "cairn.toml"), "[export]\njsonl_dir = \"memory\"\n")
	if err := os.MkdirAll(filepath.Join(web, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	// A write in web's folder, on the database itself, registers its
	// folder and writes the files.
	w := *c
	w.wd, w.project = web, "web"
	w.env = map[string]string{"HOME": c.dir, "XDG_DATA_HOME": filepath.Join(c.dir, "xdg"), "CAIRN_NO_SERVER": "1"}
	w.ok("add", "--type", "decision", "Chose dayjs over moment.js for bundle size")
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(web, "memory", name)); return string(b) }
	if !strings.Contains(read("decision.jsonl"), "dayjs") {
		t.Fatalf("decision.jsonl after a local write: %q", read("decision.jsonl"))
	}
	// The server of another project, in the database's folder.
	startServeIn(t, c, filepath.Dir(c.db))
	delete(w.env, "CAIRN_NO_SERVER")
	if r := w.ok("add", "--type", "pitfall", "The sandbox refuses refunds on test cards"); !r.served {
		t.Fatalf("the write was not answered by the server: %v", r)
	}
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(read("pitfall.jsonl"), "refunds"); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not write web's pitfall.jsonl: %q", read("pitfall.jsonl"))
		}
	}
}

// A project whose writes have always gone through a server started in
// another folder still gets its files: its folder's settings, written to
// the database through that server, say where they go.
func TestServeKeepsTheJSONLFilesOfAProjectThatOnlyEverWroteThroughIt(t *testing.T) {
	t.Parallel()
	c := newServeCLI(t)
	web := filepath.Join(c.dir, "web")
	writeConfigFile(t, filepath.Join(web, ".cairn", "cairn.toml"), "[export]\njsonl_dir = \"memory\"\n")
	if err := os.MkdirAll(filepath.Join(web, ".git"), 0o755); err != nil {
		t.Fatal(err)
	}
	startServeIn(t, c, filepath.Dir(c.db))
	w := *c
	w.wd, w.project = web, "web"
	w.env = map[string]string{"HOME": c.dir, "XDG_DATA_HOME": filepath.Join(c.dir, "xdg")}
	if r := w.ok("add", "--type", "pitfall", "The sandbox refuses refunds on test cards"); !r.served {
		t.Fatalf("the write was not answered by the server: %v", r)
	}
	read := func(name string) string { b, _ := os.ReadFile(filepath.Join(web, "memory", name)); return string(b) }
	for deadline := time.Now().Add(20 * time.Second); !strings.Contains(read("pitfall.jsonl"), "refunds"); time.Sleep(25 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("the server did not write web's pitfall.jsonl: %q", read("pitfall.jsonl"))
		}
	}
}
