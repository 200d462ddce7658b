package main

// `cairn serve status` and `cairn serve stop`: finding the server of a
// database (one a hook started in the background, say) and stopping it.
// Both ask the server over its Unix socket; when it does not answer, the
// lock file next to the database tells whether a process still holds it,
// and which.

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
)

// serveStatus is what a server says about itself.
type serveStatus struct {
	PID      int       `json:"pid"`
	Database string    `json:"database"`
	Socket   string    `json:"socket"`
	MCP      string    `json:"mcp,omitempty"` // the MCP over HTTP address; "" when HTTP is off
	Project  string    `json:"project"`       // the project of /mcp without ?project=
	Started  time.Time `json:"started"`
	Uptime   string    `json:"uptime"`
}

// stopWait bounds how long `cairn serve stop` waits for the server to be
// gone: it finishes the requests in flight and writes what it batched.
const stopWait = 30 * time.Second

// serveControl runs `cairn serve status` or `cairn serve stop` for the
// database of g. status fails (exit 1) when no server answers; stop
// succeeds when none runs, and otherwise returns once the server has
// exited.
func serveControl(ctx context.Context, m *Main, g *globals, op string, asJSON bool) error {
	if err := g.resolve(m); err != nil {
		return err
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return err
	}
	sock := socketPath(db)
	if sock == "" {
		return cairn.Errorf(cairn.EINVALID, "the database path %s is too long for a Unix socket; no server can run for it", db)
	}
	st, askErr := askServer(sock, op)
	held, pid := serveLockHolder(db)
	if op == opStatus {
		if askErr != nil {
			if held {
				return cairn.Errorf(cairn.EUNAVAILABLE, "a cairn serve (pid %d) holds the lock of %s but does not answer on %s: it is starting, or hung", pid, db, sock)
			}
			return cairn.Errorf(cairn.ENOTFOUND, "no cairn serve is running for %s", db)
		}
		return printServeStatus(m, st, asJSON)
	}
	switch {
	case askErr == nil:
		pid = st.PID
	case held && pid > 0:
		// It does not answer: ask the process that holds the lock.
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot stop the cairn serve of %s (pid %d)", db, pid)
		}
	case held:
		return cairn.Errorf(cairn.EUNAVAILABLE, "a cairn serve holds the lock of %s but does not answer, and its lock file names no pid", db)
	default:
		fmt.Fprintf(m.Stderr, "cairn: no cairn serve is running for %s\n", db)
		return nil
	}
	deadline := time.Now().Add(stopWait)
	for {
		// The lock goes first (the server's last act), then the process.
		if held, _ := serveLockHolder(db); !held && (pid <= 0 || processGone(pid)) {
			break
		}
		if time.Now().After(deadline) {
			return cairn.Errorf(cairn.EUNAVAILABLE, "the cairn serve of %s (pid %d) did not stop within %v", db, pid, stopWait)
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
	if asJSON {
		return writeJSON(m.Stdout, map[string]any{"stopped": true, "pid": pid, "database": db})
	}
	fmt.Fprintf(m.Stdout, "stopped cairn serve (pid %d) of %s\n", pid, db)
	return nil
}

// processGone reports whether the process pid has exited: it no longer
// exists, or is a zombie waiting for its parent.
func processGone(pid int) bool {
	if syscall.Kill(pid, 0) == syscall.ESRCH {
		return true
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return false
	}
	// pid (comm) state …; comm may hold spaces and parentheses.
	s := string(b)
	i := strings.LastIndexByte(s, ')')
	return i >= 0 && strings.HasPrefix(s[i+1:], " Z")
}

// askServer sends op to the server listening on sock and returns its status.
func askServer(sock, op string) (*serveStatus, error) {
	c, err := client.New("unix:"+sock, &client.Options{Timeout: serverTimeout})
	if err != nil {
		return nil, err
	}
	method := http.MethodGet
	if op == opStop {
		method = http.MethodPost
	}
	var st serveStatus
	if err := c.Call(context.Background(), method, "/serve/"+op, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

func printServeStatus(m *Main, st *serveStatus, asJSON bool) error {
	if asJSON {
		return writeJSON(m.Stdout, st)
	}
	mcp := st.MCP
	if mcp == "" {
		mcp = "off"
	}
	fmt.Fprintf(m.Stdout, "pid       %d\ndatabase  %s\nsocket    %s\nmcp       %s\nproject   %s\nuptime    %s (since %s)\n",
		st.PID, st.Database, st.Socket, mcp, st.Project, st.Uptime, st.Started.UTC().Format(time.RFC3339))
	return nil
}
