package sqlite_test

import (
	"database/sql"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"

	"github.com/cairn-dev/cairn/sqlite"
)

// residentBytes is the process's resident size by /proc/self/statm.
func residentBytes(t *testing.T) int64 {
	t.Helper()
	b, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		t.Skipf("no /proc/self/statm: %v", err)
	}
	f := strings.Fields(string(b))
	pages, err := strconv.ParseInt(f[1], 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return pages * int64(os.Getpagesize())
}

// A blob that spans overflow pages is read into a region of SQLite's
// allocator that stays committed once freed; TrimMemory hands it back.
func TestTrimMemoryReturnsFreedRegions(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("the resident size is read from /proc")
	}
	db, err := sql.Open("sqlite", "file:"+filepath.Join(t.TempDir(), "t.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	const size = 12 << 20
	if _, err := db.Exec(`CREATE TABLE t(b BLOB); INSERT INTO t VALUES (randomblob(?))`, size); err != nil {
		t.Fatal(err)
	}
	var b []byte
	if err := db.QueryRow(`SELECT b FROM t`).Scan(&b); err != nil || len(b) != size {
		t.Fatalf("read %d bytes, %v; want %d", len(b), err, size)
	}
	b = nil
	debug.FreeOSMemory()
	before := residentBytes(t)
	if !sqlite.TrimMemory() {
		t.Skip("this build's allocator keeps no pool")
	}
	debug.FreeOSMemory()
	after := residentBytes(t)
	// The blob's region: its 12 MiB were written when it was read.
	if freed := before - after; freed < 8<<20 {
		t.Errorf("trim returned %d KiB of the resident size (%d KiB before, %d after), want at least %d", freed>>10, before>>10, after>>10, 8<<10)
	}
}
