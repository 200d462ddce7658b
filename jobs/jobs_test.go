package jobs

import (
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

// clock is a settable engine clock.
type clock struct {
	mu  sync.Mutex
	now time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *clock) Set(t time.Time) {
	c.mu.Lock()
	c.now = t
	c.mu.Unlock()
}

func (c *clock) Advance(d time.Duration) { c.Set(c.Now().Add(d)) }

var t0 = time.Date(2025, 6, 2, 9, 0, 0, 0, time.UTC)

// openDB opens a new database file and returns its path and an engine
// over it at the clock c (starting at t0), closed when the test ends.
func openDB(t *testing.T) (string, *engine.Engine, *clock) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "c.db")
	c := &clock{now: t0}
	return path, openEngine(t, path, c), c
}

// openEngine opens another store of the file path, as another process
// does.
func openEngine(t *testing.T, path string, c *clock) *engine.Engine {
	t.Helper()
	st, err := sqlite.Open(t.Context(), path, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return engine.New(st, &engine.Options{Now: c.Now})
}

func add(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.Memory {
	t.Helper()
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatal(err)
	}
	return res.Memory
}

func exists(t *testing.T, e *engine.Engine, id string) bool {
	t.Helper()
	_, err := e.FindMemoryByID(t.Context(), id)
	if err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Fatal(err)
	}
	return err == nil
}

// plainEngine is an engine over st at the clock c.
func plainEngine(st cairn.Store, c *clock) *engine.Engine {
	return engine.New(st, &engine.Options{Now: c.Now})
}
