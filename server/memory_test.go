package main

import (
	"path/filepath"
	"sync"
	"testing"
)

// limitRecorder stands for debug.SetMemoryLimit: it records the limits
// set and answers a negative one with the current limit.
type limitRecorder struct {
	mu    sync.Mutex
	limit int64
	set   []int64
}

func (r *limitRecorder) SetMemoryLimit(n int64) int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	old := r.limit
	if n >= 0 {
		r.limit = n
		r.set = append(r.set, n)
	}
	return old
}

// serveWithLimit runs `cairn serve` in process with env, its memory
// limits going to rec, until it listens; it returns a function that stops
// it and waits for it to exit.
func serveWithLimit(t *testing.T, env map[string]string, rec *limitRecorder) (stop func()) {
	t.Helper()
	c := newServeCLI(t)
	for k, v := range env {
		c.env[k] = v
	}
	return serveInProcess(t, t.Context(), c, filepath.Dir(c.db), func(m *Main) { m.SetMemoryLimit = rec.SetMemoryLimit })
}

// cairn serve sets a soft memory limit of what its engine keeps plus
// room for the rest, and puts the one it found back when it stops; with
// GOMEMLIMIT set, the user's limit stands.
func TestServeSetsAMemoryLimitUnlessGOMEMLIMITIsSet(t *testing.T) {
	t.Parallel()
	const prior = 1 << 40
	rec := &limitRecorder{limit: prior}
	stop := serveWithLimit(t, nil, rec)
	rec.mu.Lock()
	set := append([]int64(nil), rec.set...)
	rec.mu.Unlock()
	if len(set) == 0 || set[0] < serveMemoryRoom || set[0] >= prior {
		t.Errorf("a running server set the limits %v, want one of at least %d (what its engine keeps + %d)", set, serveMemoryRoom, serveMemoryRoom)
	}
	stop()
	if rec.limit != prior {
		t.Errorf("after the server stopped the limit is %d, want the one before, %d (set: %v)", rec.limit, int64(prior), rec.set)
	}

	user := &limitRecorder{limit: prior}
	serveWithLimit(t, map[string]string{"GOMEMLIMIT": "300MiB"}, user)()
	if len(user.set) != 0 || user.limit != prior {
		t.Errorf("with GOMEMLIMIT set, the server set the limits %v", user.set)
	}
}
