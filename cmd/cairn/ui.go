package main

// `cairn ui`: the web page of the database's local server, opened in the
// browser; the server is started in the background (as a hook starts it)
// when none runs.

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/server"
)

// uiStartWait bounds how long `cairn ui` waits for the server it started
// to answer.
const uiStartWait = 15 * time.Second

func runUI(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "ui", "[--print]")
	printOnly := fs.Bool("print", false, "print the page's address instead of opening it")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("ui: unexpected argument %q", pos[0])
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	url, err := m.localServer(ctx, g, db)
	if err != nil {
		return err
	}
	opener := m.OpenURL
	if opener == nil || *printOnly {
		fmt.Fprintln(m.Stdout, url)
		return nil
	}
	if err := opener(url); err != nil {
		fmt.Fprintf(m.Stderr, "cairn: cannot open a browser (%s); the page is at:\n", oneLine(err.Error()))
		fmt.Fprintln(m.Stdout, url)
	}
	return nil
}

// localServer returns the web page's address of the server of db,
// starting the server in the background when none runs.
func (m *Main) localServer(ctx context.Context, g *globals, db string) (string, error) {
	st, err := server.StatusOf(ctx, db, db)
	if err != nil && cairn.ErrorCode(err) == cairn.ENOTFOUND {
		if m.Getenv("CAIRN_NO_SERVER") != "" {
			return "", fmt.Errorf("no cairn serve is running for %s, and CAIRN_NO_SERVER keeps one from starting; run `cairn serve`", db)
		}
		if m.StartServer == nil {
			return "", fmt.Errorf("no cairn serve is running for %s; run `cairn serve`", db)
		}
		if err := m.StartServer(db, g.project); err != nil {
			return "", fmt.Errorf("starting cairn serve: %w", err)
		}
	}
	for deadline := time.Now().Add(uiStartWait); ; time.Sleep(20 * time.Millisecond) {
		if st, err = server.StatusOf(ctx, db, db); err == nil {
			break
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("cairn serve did not answer within %v (its log: %s): %w", uiStartWait,
				filepath.Join(filepath.Dir(db), logFileName), err)
		}
	}
	if st.URL == "" {
		return "", fmt.Errorf("the cairn serve of %s (pid %d) answers no HTTP (started with --addr off, or its port was taken); stop it with `cairn serve stop` and run `cairn ui` again", db, st.PID)
	}
	return st.URL, nil
}

// openInBrowser opens url with the desktop's opener: open on macOS,
// xdg-open elsewhere.
func openInBrowser(url string) error {
	name := "xdg-open"
	if runtime.GOOS == "darwin" {
		name = "open"
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return fmt.Errorf("%s is not installed", name)
	}
	cmd := exec.Command(path, url)
	if err := cmd.Start(); err != nil {
		return err
	}
	go cmd.Wait()
	return nil
}
