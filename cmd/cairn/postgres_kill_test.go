package main

import (
	"bytes"
	"context"
	"fmt"
	"math/rand/v2"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
)

// A cairn process, or its PostgreSQL connection, killed in the middle of
// a write loses nothing committed and leaves nothing half-written: an
// import killed (kill -9) while its COPY runs, and one whose server
// connection is terminated, store none of their records; writer processes
// killed at random moments while adding leave every memory whose id was
// printed stored and found by search, and the others absent; afterwards
// the database takes writes as before (no lock left held).
func TestKilledWritersOnPostgresLoseNothingCommitted(t *testing.T) {
	needBinary(t)
	db := pgTestURL(t)
	t.Parallel()
	ctx := t.Context()
	app := "cairn_kill_" + fmt.Sprint(rand.Uint64())
	u, err := url.Parse(db)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	schema := q.Get("search_path")
	// withApp returns the database's URL with an application name of its
	// own, by which the test finds the server processes of one cairn run.
	withApp := func(name string) string {
		q := u.Query()
		q.Set("application_name", name)
		c := *u
		c.RawQuery = q.Encode()
		return c.String()
	}
	dir := t.TempDir()
	g := []string{"--db", withApp(app), "--project", "crash"}
	conn, err := pgx.Connect(ctx, os.Getenv("CAIRN_TEST_POSTGRES_URL"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(context.Background())
	count := func() int {
		t.Helper()
		var n int
		if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "memories"}.Sanitize()).Scan(&n); err != nil {
			t.Fatalf("count memories: %v", err)
		}
		return n
	}

	// What is committed before the crashes.
	committed := map[string]string{} // id → its unique word
	for i := range 3 {
		word := fmt.Sprintf("basalt%d", i)
		r := runBin(ctx, dir, "", append(g, "add", "The "+word+" memory is committed before any crash.")...)
		if r.code != 0 {
			t.Fatalf("add: %v", r)
		}
		committed[strings.TrimSpace(r.stdout)] = word
	}
	corpus := filepath.Join(dir, "big.jsonl")
	var buf bytes.Buffer
	for i := range 30000 {
		fmt.Fprintf(&buf, `{"id":"imp-%06d","project":"crash","type":"pattern","title":"imported %d","content":"Imported memory %d about the granite%d service and its retries."}`+"\n", i, i, i, i)
	}
	if err := os.WriteFile(corpus, buf.Bytes(), 0o600); err != nil {
		t.Fatal(err)
	}

	// copying waits until a server process of the cairn run named name
	// runs a COPY into memories, and returns its pid.
	copying := func(cmd *exec.Cmd, name string) int {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			var pid int
			err := conn.QueryRow(ctx, `SELECT pid FROM pg_stat_activity WHERE application_name = $1
				AND state = 'active' AND query ILIKE 'copy%memories%' LIMIT 1`, name).Scan(&pid)
			if err == nil {
				return pid
			}
			if cmd.ProcessState != nil {
				break
			}
			time.Sleep(5 * time.Millisecond)
		}
		t.Fatal("the import never reached its COPY")
		return 0
	}
	// gone waits until the run named name has no server process left:
	// its transaction rolled back, its locks released.
	gone := func(name string) {
		t.Helper()
		deadline := time.Now().Add(60 * time.Second)
		for time.Now().Before(deadline) {
			var n int
			if err := conn.QueryRow(ctx, `SELECT count(*) FROM pg_stat_activity WHERE application_name = $1`, name).Scan(&n); err != nil {
				t.Fatal(err)
			}
			if n == 0 {
				return
			}
			time.Sleep(20 * time.Millisecond)
		}
		t.Fatalf("the server processes of a killed cairn (%s) are still there after a minute", name)
	}
	startImport := func(name string) (*exec.Cmd, *bytes.Buffer) {
		cmd := exec.Command(cairnBin, "--db", withApp(name), "--project", "crash", "import", corpus)
		cmd.Dir, cmd.Env = dir, binEnv(dir)
		var errb bytes.Buffer
		cmd.Stderr = &errb
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		return cmd, &errb
	}

	// 1. kill -9 of the cairn process mid-COPY.
	cmd, _ := startImport(app + "_1")
	copying(cmd, app+"_1")
	cmd.Process.Kill()
	cmd.Wait()
	gone(app + "_1")
	if n := count(); n != len(committed) {
		t.Errorf("after an import killed mid-way: %d memories, want the %d committed before", n, len(committed))
	}

	// 2. the server ends the import's connection mid-COPY.
	cmd, errb := startImport(app + "_2")
	pid := copying(cmd, app+"_2")
	if _, err := conn.Exec(ctx, `SELECT pg_terminate_backend($1)`, pid); err != nil {
		t.Fatal(err)
	}
	if err := cmd.Wait(); err == nil {
		t.Error("an import whose connection was terminated exited 0")
	} else if strings.Contains(errb.String(), "panic") || errb.Len() == 0 {
		t.Errorf("an import whose connection was terminated said %q", errb.String())
	}
	if n := count(); n != len(committed) {
		t.Errorf("after an import's connection was terminated: %d memories, want %d", n, len(committed))
	}

	// 3. writer processes killed at random moments.
	var mu sync.Mutex
	var wg sync.WaitGroup
	killed := 0
	for w := range 4 {
		wg.Go(func() {
			for i := range 12 {
				word := fmt.Sprintf("obsidian%dx%d", w, i)
				cmd := exec.Command(cairnBin, append(g, "add", "The "+word+" memory may be killed while it is written.")...)
				cmd.Dir, cmd.Env = dir, binEnv(dir)
				var out bytes.Buffer
				cmd.Stdout = &out
				if err := cmd.Start(); err != nil {
					t.Error(err)
					return
				}
				if i%2 == 1 {
					// Somewhere between start-up and commit.
					time.Sleep(time.Duration(rand.IntN(40)) * time.Millisecond)
					cmd.Process.Kill()
				}
				err := cmd.Wait()
				id := strings.TrimSpace(out.String())
				mu.Lock()
				if err == nil && idRE.MatchString(id) {
					committed[id] = word
				} else {
					killed++
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	t.Logf("%d writers killed before they printed an id; %d memories reported committed", killed, len(committed))

	// Every memory reported committed is there and indexed; nothing else.
	var ids []string
	for id := range committed {
		ids = append(ids, id)
	}
	var present int
	if err := conn.QueryRow(ctx, `SELECT count(*) FROM `+pgx.Identifier{schema, "memories"}.Sanitize()+` WHERE id = ANY($1)`, ids).Scan(&present); err != nil {
		t.Fatal(err)
	}
	if present != len(ids) {
		t.Errorf("%d of the %d memories reported committed are stored", present, len(ids))
	}
	if n := count(); n < len(ids) || n > len(ids)+killed {
		t.Errorf("%d memories stored: want the %d reported, and at most the %d killed ones beside", n, len(ids), killed)
	}
	for id, word := range committed {
		r := runBin(ctx, dir, "", append(g, "search", "--json", word)...)
		if r.code != 0 || !strings.Contains(r.stdout, id) {
			t.Errorf("search %s does not find %s: %v", word, id, r)
		}
	}
	// The database takes a whole import now: no lock was left held.
	if r := runBin(ctx, dir, "", append(g, "import", corpus)...); r.code != 0 {
		t.Fatalf("import after the crashes: %v", r)
	}
	if n, want := count(), len(ids)+30000; n < want {
		t.Errorf("after the import: %d memories, want at least %d", n, want)
	}
}
