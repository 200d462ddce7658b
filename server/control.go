package server

// Finding the server of a database (one a hook started in the background,
// say) and stopping it, from another process: both ask the server over
// its Unix socket; when it does not answer, the lock file next to the
// database tells whether a process still holds it, and which.

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
)

// AskTimeout bounds a question to a server about itself.
const AskTimeout = 3 * time.Second

// StopWait bounds how long Stop waits for the server to be gone: it
// finishes the requests in flight and writes what it batched.
const StopWait = 30 * time.Second

// lock takes the lock of the server of the database at path, or says
// (ECONFLICT) that another server holds it. The lock goes with the
// process, or with the returned unlock.
func lock(path, label string) (unlock func(), err error) {
	f, err := os.OpenFile(LockPath(path), os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot lock the server of %s", label)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, errAlreadyServing(label)
		}
		return nil, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot lock the server of %s", label)
	}
	// The holder's pid, for Status and Stop when the server does not
	// answer on its socket.
	if f.Truncate(0) == nil {
		f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return func() { f.Close() }, nil
}

// LockHolder reports whether a server holds the lock of the database at
// path (it runs, or is starting), and its pid when the lock file names
// one.
func LockHolder(path string) (held bool, pid int) {
	f, err := os.Open(LockPath(path))
	if err != nil {
		return false, 0
	}
	defer f.Close()
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_SH|syscall.LOCK_NB); err == nil {
		syscall.Flock(int(f.Fd()), syscall.LOCK_UN)
		return false, 0
	}
	b, _ := io.ReadAll(io.LimitReader(f, 32))
	pid, _ = strconv.Atoi(strings.TrimSpace(string(b)))
	return true, pid
}

// Answers reports whether a server answers on the socket of the database
// at path within timeout.
func Answers(path string, timeout time.Duration) bool {
	sock := SocketPath(path)
	return OwnSocket(sock) && client.Answers(sock, timeout)
}

// Ensure starts a server for the database at path with start when none
// answers (within timeout) and none is starting (its lock is held), and
// then waits up to wait for the new one to answer; it returns start's
// error. The socket file of a server that died is no reason not to
// start: the new one removes it once it holds the lock.
func Ensure(path string, timeout, wait time.Duration, start func() error) error {
	if Answers(path, timeout) {
		return nil // running
	}
	if held, _ := LockHolder(path); held {
		return nil // starting (or hung: its lock goes when it does)
	}
	if err := start(); err != nil {
		return err
	}
	for deadline := time.Now().Add(wait); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if Answers(path, 50*time.Millisecond) {
			break
		}
	}
	return nil
}

// ask sends a request about the server to its socket and returns its
// status.
func ask(ctx context.Context, sock, method, route string) (*Status, error) {
	if !OwnSocket(sock) {
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "no socket of yours at %s", sock)
	}
	c, err := client.New("unix:"+sock, &client.Options{Timeout: AskTimeout})
	if err != nil {
		return nil, err
	}
	var st Status
	if err := c.Call(ctx, method, route, nil, &st); err != nil {
		return nil, err
	}
	return &st, nil
}

// StatusOf returns the status of the server of the database at path
// (label names it in messages): ENOTFOUND when none runs, EUNAVAILABLE
// when one holds the lock but does not answer (it is starting, or hung).
func StatusOf(ctx context.Context, path, label string) (*Status, error) {
	sock := SocketPath(path)
	st, err := ask(ctx, sock, http.MethodGet, "/serve/status")
	if err == nil {
		return st, nil
	}
	if held, pid := LockHolder(path); held {
		return nil, cairn.Errorf(cairn.EUNAVAILABLE, "a cairn serve (pid %d) holds the lock of %s but does not answer on %s: it is starting, or hung", pid, label, sock)
	}
	return nil, cairn.Errorf(cairn.ENOTFOUND, "no cairn serve is running for %s", label)
}

// Stop stops the server of the database at path and returns once it has
// exited: it asks the server over its socket, or, when it does not
// answer, sends SIGTERM to the process that holds its lock. It returns
// the server's pid, 0 when none was running. EUNAVAILABLE when it cannot
// be stopped, or is still running after StopWait.
func Stop(ctx context.Context, path, label string) (pid int, err error) {
	sock := SocketPath(path)
	st, askErr := ask(ctx, sock, http.MethodPost, "/serve/stop")
	held, pid := LockHolder(path)
	switch {
	case askErr == nil:
		pid = st.PID
	case held && pid > 0:
		// It does not answer: ask the process that holds the lock.
		if err := syscall.Kill(pid, syscall.SIGTERM); err != nil {
			return pid, cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot stop the cairn serve of %s (pid %d)", label, pid)
		}
	case held:
		return 0, cairn.Errorf(cairn.EUNAVAILABLE, "a cairn serve holds the lock of %s but does not answer, and its lock file names no pid", label)
	default:
		return 0, nil
	}
	deadline := time.Now().Add(StopWait)
	for {
		// The lock goes first (the server's last act), then the process.
		if held, _ := LockHolder(path); !held && (pid <= 0 || ProcessGone(pid)) {
			return pid, nil
		}
		if time.Now().After(deadline) {
			return pid, cairn.Errorf(cairn.EUNAVAILABLE, "the cairn serve of %s (pid %d) did not stop within %v", label, pid, StopWait)
		}
		select {
		case <-ctx.Done():
			return pid, ctx.Err()
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ProcessGone reports whether the process pid has exited: it no longer
// exists, or is a zombie waiting for its parent (a server started by the
// caller and not yet waited for).
func ProcessGone(pid int) bool {
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
