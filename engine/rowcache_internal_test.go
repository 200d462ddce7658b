package engine

import (
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// TestKeptRowsEqualFreshRows asks an engine that keeps the rows it reads
// (a long-lived process's) and one that reads the store every time, on
// the same database file through two stores as two processes would, for
// the memories tagged with some words and those about some files.
// Between the questions the other store writes (adds, edits that change
// a row but not its document: confidence, a pin, an expiry; deletes),
// the keeping engine writes, queues uses (which leave the rows as they
// are and keep them) and folds them (which change them), and the other
// store writes right after the keeping engine queued uses: every answer
// must equal the fresh one, and so must the lasting tiers of a context,
// kept the same way. Queuing uses leaves the rows version as it was, and
// the rows and tiers kept; the other store's edit between two queuings
// changes it.
func TestKeptRowsEqualFreshRows(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	kept := New(open(), &Options{Now: clock, CacheBytes: 1 << 20})
	fresh := New(open(), &Options{Now: clock})
	r := rand.New(rand.NewPCG(3, 5))
	tags := []string{"build", "deploy", "flaky", "cache", "auth", "schema"}
	files := []string{"cmd/main.go", "internal/db/db.go", "web/app.ts", "docs/guide.md"}
	types := []string{"note", "fix", "decision", "pitfall"}
	var ids []string
	add := func(e *Engine, i int) {
		m := &cairn.Memory{Project: "p", Type: types[r.IntN(len(types))], Content: fmt.Sprintf("memory %d about w%d", i, r.IntN(40)),
			Tags: []string{tags[r.IntN(len(tags))], tags[r.IntN(len(tags))]}, FileRefs: []string{files[r.IntN(len(files))]}}
		if r.IntN(6) == 0 {
			m.Scope = cairn.ScopeGlobal
		}
		if r.IntN(5) == 0 {
			m.Tags = nil
		}
		res, err := e.AddMemory(t.Context(), m)
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
		now = now.Add(time.Minute)
	}
	for i := range 300 {
		add(fresh, i)
	}
	type ask struct {
		tags, files, types []string
		limit              int
	}
	var asks []ask
	for range 10 {
		a := ask{tags: []string{tags[r.IntN(len(tags))], tags[r.IntN(len(tags))], "nothing"}, files: []string{files[r.IntN(len(files))]}, limit: 1 + r.IntN(30)}
		if r.IntN(3) == 0 {
			a.types = []string{types[r.IntN(len(types))]}
		}
		asks = append(asks, a)
	}
	keptRows := func() int {
		c := &kept.cache.rows
		c.mu.Lock()
		defer c.mu.Unlock()
		return len(c.rows) + len(c.old)
	}
	version := func() int64 {
		t.Helper()
		v, ok := kept.rowsVersion(t.Context())
		if !ok {
			t.Fatal("no rows version")
		}
		return v
	}
	tiersReq := cairn.CandidateRequest{Project: "p", Pinned: true, StaticTypes: []string{"decision"}, StaticPerType: 5,
		CriticalTypes: []string{"pitfall"}, CriticalConfidence: 0.5, DynamicTypes: []string{"note"}, DynamicCount: 3}
	same := func(step string) {
		t.Helper()
		want, err := fresh.tierCandidates(t.Context(), tiersReq)
		if err != nil {
			t.Fatal(err)
		}
		for range 2 { // the second answer is the one kept
			got, err := kept.tierCandidates(t.Context(), tiersReq)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("%s: the tiers kept differ:\n got %v\nwant %v", step, got, want)
			}
		}
		for _, a := range asks {
			want, err := fresh.tagCandidates(t.Context(), "p", a.tags, a.types, a.limit)
			if err != nil {
				t.Fatal(err)
			}
			wantFiles, err := fresh.fileRefCandidates(t.Context(), "p", a.files, a.types, a.limit)
			if err != nil {
				t.Fatal(err)
			}
			for range 2 { // the second answer reads the rows kept
				got, err := kept.tagCandidates(t.Context(), "p", a.tags, a.types, a.limit)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(got, want) {
					t.Fatalf("%s: tagged %v: the rows kept differ:\n got %s\nwant %s", step, a.tags, memIDs(got), memIDs(want))
				}
				gotFiles, err := kept.fileRefCandidates(t.Context(), "p", a.files, a.types, a.limit)
				if err != nil {
					t.Fatal(err)
				}
				if !reflect.DeepEqual(gotFiles, wantFiles) {
					t.Fatalf("%s: about %v: the rows kept differ:\n got %s\nwant %s", step, a.files, memIDs(gotFiles), memIDs(wantFiles))
				}
				if len(got) > 0 {
					got[0].Tags = append(got[0].Tags[:0], "changed by the caller") // a caller's own copy
					got[0].Confidence = -1
				}
			}
		}
		if keptRows() == 0 {
			t.Fatalf("%s: no row kept", step)
		}
	}
	queue := func() {
		t.Helper()
		if _, err := kept.QueueUses(t.Context(), []Use{{IDs: []string{ids[r.IntN(len(ids))], ids[r.IntN(len(ids))]}, Session: fmt.Sprintf("s%d", r.IntN(3)), At: now}}); err != nil {
			t.Fatal(err)
		}
	}
	pick := func() string { return ids[r.IntN(len(ids))] }
	edit := func(e *Engine) {
		t.Helper()
		var u cairn.MemoryUpdate
		switch r.IntN(3) {
		case 0:
			c := 0.99
			u.Confidence = &c
		case 1:
			p := true
			u.Pinned = &p
		case 2:
			x := now.Add(time.Hour)
			u.ExpiresAt = &x
		}
		if _, err := e.UpdateMemory(t.Context(), pick(), u); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Fatal(err)
		}
	}
	version()
	queue() // the first commit seen after the first version changes it
	time.Sleep(2 * time.Millisecond)
	version()
	for i := range 48 {
		same(fmt.Sprintf("step %d", i))
		switch i % 8 {
		case 0:
			v := version()
			queue() // the rows stay as they are, and stay kept
			time.Sleep(2 * time.Millisecond)
			if version() != v {
				t.Fatalf("step %d: queuing uses changed the rows version", i)
			}
			// And so do the tiers.
			if _, hit := kept.cache.tiers(tierKey(tiersReq), v); !hit {
				t.Fatalf("step %d: queuing uses dropped the tiers kept", i)
			}
		case 1:
			add(fresh, 1000+i) // another process writes
			// Seen within a millisecond (sqlite.Store.DataVersion).
			time.Sleep(2 * time.Millisecond)
		case 2:
			add(kept, 1000+i)
		case 3:
			edit(fresh)
			time.Sleep(2 * time.Millisecond)
		case 4:
			edit(kept)
		case 5:
			queue()
			if _, err := kept.FoldUses(t.Context()); err != nil { // use counts and confidences change
				t.Fatal(err)
			}
		case 6:
			// This engine's writes that keep the rows, and another's
			// that changes them, one after the other.
			v := version()
			queue()
			edit(fresh)
			queue()
			time.Sleep(2 * time.Millisecond)
			if version() == v {
				t.Fatalf("step %d: another store's edit left the rows version as it was", i)
			}
		case 7:
			if err := fresh.DeleteMemory(t.Context(), pick()); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				t.Fatal(err)
			}
			time.Sleep(2 * time.Millisecond)
		}
	}
}

func memIDs(ms []*cairn.Memory) string {
	s := ""
	for _, m := range ms {
		s += fmt.Sprintf("%s(%.2f,%d) ", m.ID, m.Confidence, m.UseCount)
	}
	return s
}

// The rows kept stay within their bound, the older half going when the
// newer fills, and a row used again moves to the newer half and stays.
func TestKeptRowsStayWithinTheirBound(t *testing.T) {
	t.Parallel()
	var c rowCache
	row := func(i int) *cairn.Memory {
		return &cairn.Memory{ID: fmt.Sprintf("mem-%04d", i), Project: "p", Content: "some content of a row", DocNum: int64(i)}
	}
	bound := 40 * rowSize(row(0))
	c.put(partDoc{"p", 0}, row(0), bound)
	for i := 1; i < 500; i++ {
		c.put(partDoc{"p", int64(i)}, row(i), bound)
		if _, ok := c.get(partDoc{"p", 0}, bound); !ok {
			t.Fatalf("after %d rows: the row used after each was let go", i)
		}
		if n := c.size + c.oldSize; n > bound+rowSize(row(i)) {
			t.Fatalf("after %d rows: %d bytes kept, bound %d", i, n, bound)
		}
	}
	if _, ok := c.get(partDoc{"p", 1}, bound); ok {
		t.Fatal("the second row, never used again, is still kept")
	}
}

// TestKeptTiersAndSearchesAfterConcurrentWrites asks a keeping engine for
// a context's tiers and for searches while, at the same time, it writes
// memories, queues uses and folds them, and another store edits: once
// the writes stop, what it answers must equal a fresh engine's answer,
// so that nothing read during a write was kept under a version that
// stayed current after it.
func TestKeptTiersAndSearchesAfterConcurrentWrites(t *testing.T) {
	t.Parallel()
	open := storeOpener(t)
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { return now }
	kept := New(open(), &Options{Now: clock, CacheBytes: 1 << 20})
	other := New(open(), &Options{Now: clock})
	fresh := New(open(), &Options{Now: clock})
	types := []string{"note", "decision", "pitfall"}
	var ids []string
	for i := range 200 {
		res, err := fresh.AddMemory(t.Context(), &cairn.Memory{Project: "p", Type: types[i%3], Content: fmt.Sprintf("memory %d about w%d and w%d", i, i%17, i%5)})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, res.Memory.ID)
	}
	req := cairn.CandidateRequest{Project: "p", Pinned: true, StaticTypes: []string{"decision"}, StaticPerType: 5,
		CriticalTypes: []string{"pitfall"}, CriticalConfidence: 0.5, DynamicTypes: []string{"note"}, DynamicCount: 3}
	queries := []cairn.Query{{Project: "p", Text: "w3 w4", Limit: 5, Now: now}, {Project: "p", Text: "memory w1", Limit: 10, Now: now}}
	stop := make(chan struct{})
	done := make(chan error, 2)
	go func() { // the reader: a server's blocks
		for {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			if _, err := kept.tierCandidates(t.Context(), req); err != nil {
				done <- err
				return
			}
			for _, q := range queries {
				if _, err := kept.Search(t.Context(), q); err != nil {
					done <- err
					return
				}
			}
		}
	}()
	go func() { // another process
		for i := 0; ; i++ {
			select {
			case <-stop:
				done <- nil
				return
			default:
			}
			content := fmt.Sprintf("edited %d about w%d and w%d", i, i%17, i%4)
			if _, err := other.UpdateMemory(t.Context(), ids[(i*7)%len(ids)], cairn.MemoryUpdate{Content: &content}); err != nil {
				done <- err
				return
			}
			time.Sleep(time.Millisecond)
		}
	}()
	for i := range 120 { // the server's own writes
		switch i % 4 {
		case 0, 1:
			if _, err := kept.QueueUses(t.Context(), []Use{{IDs: []string{ids[(i*13)%len(ids)], ids[(i*29)%len(ids)]}, Session: fmt.Sprintf("s%d", i%3), At: now}}); err != nil {
				t.Fatal(err)
			}
		case 2:
			if _, err := kept.FoldUses(t.Context()); err != nil {
				t.Fatal(err)
			}
		case 3:
			p := i%8 == 3
			if _, err := kept.UpdateMemory(t.Context(), ids[(i*11)%len(ids)], cairn.MemoryUpdate{Pinned: &p}); err != nil {
				t.Fatal(err)
			}
		}
	}
	close(stop)
	for range 2 {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
	time.Sleep(2 * time.Millisecond) // the other store's last commit seen (sqlite.Store.DataVersion)
	want, err := fresh.tierCandidates(t.Context(), req)
	if err != nil {
		t.Fatal(err)
	}
	for range 2 {
		got, err := kept.tierCandidates(t.Context(), req)
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("the tiers kept differ:\n got %v\nwant %v", got, want)
		}
		for _, q := range queries {
			want, err := fresh.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			got, err := kept.Search(t.Context(), q)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("search %q: the kept answer differs:\n got %s\nwant %s", q.Text, hitIDs(got), hitIDs(want))
			}
		}
	}
}
