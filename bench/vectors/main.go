// Command vectors measures vector search against its budgets: with N
// memories (default 100,000) of D-dimensional vectors (default 768) in one
// project, the in-process search time (p50, p99) of Engine.SearchByVector,
// the time and memory to load the index, and, given a cairn binary, the
// resident set of `cairn serve` once it has loaded the vectors.
//
//	go run ./bench/vectors                          # in process only
//	go build -o /tmp/cairn ./cmd/cairn && go run ./bench/vectors -cairn /tmp/cairn
//
// The vectors are random (no model is needed): search time does not
// depend on what they mean. No embeddings endpoint is called: the engine
// is configured with one that does not answer, and the queries are
// vectors already made.
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"hash/fnv"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/embed"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/sqlite"
)

const (
	project = "bench"
	model   = "bench-model"
	noURL   = "http://127.0.0.1:9/v1" // the discard port: nothing answers
)

func main() {
	n := flag.Int("n", 100_000, "memories")
	dims := flag.Int("dims", 768, "dimensions of each vector")
	queries := flag.Int("queries", 200, "measured searches")
	dbPath := flag.String("db", "", "the database to create or reuse (default: a temporary one)")
	cairnBin := flag.String("cairn", "", "a cairn binary: also measure the resident set of `cairn serve` with the vectors loaded")
	flag.Parse()
	if err := run(*n, *dims, *queries, *dbPath, *cairnBin); err != nil {
		fmt.Fprintln(os.Stderr, "vectors:", err)
		os.Exit(1)
	}
}

func run(n, dims, queries int, dbPath, cairnBin string) error {
	ctx := context.Background()
	if dbPath == "" {
		dir, err := os.MkdirTemp("", "cairn-vectors-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(dir)
		dbPath = filepath.Join(dir, "cairn.db")
	}
	st, err := sqlite.Open(ctx, dbPath, nil)
	if err != nil {
		return err
	}
	client, err := embed.New(embed.Config{BaseURL: noURL, Model: model}, nil, nil, nil)
	if err != nil {
		return err
	}
	eng := engine.New(st, &engine.Options{Embedder: client})
	fmt.Printf("machine: %s/%s, %d CPUs, %s\n", runtime.GOOS, runtime.GOARCH, runtime.NumCPU(), runtime.Version())

	if err := fill(ctx, eng, st, n, dims); err != nil {
		return err
	}
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	start := time.Now()
	loaded, err := eng.WarmVectors(ctx, project)
	if err != nil {
		return err
	}
	load := time.Since(start)
	runtime.GC()
	var after runtime.MemStats
	runtime.ReadMemStats(&after)
	fmt.Printf("index: %d vectors of %d dimensions loaded in %s; heap %+.0f MB\n", loaded, dims, load.Round(time.Millisecond),
		float64(int64(after.HeapAlloc)-int64(before.HeapAlloc))/(1<<20))

	// Queries near stored vectors (a stored vector plus as much noise
	// again): each matches one memory well and the rest as random ones.
	var sample []*cairn.Memory
	err = st.View(ctx, func(tx cairn.Tx) error {
		var err error
		sample, _, err = tx.FindMemories(ctx, cairn.MemoryFilter{Project: project, Limit: 200, SkipTotal: true})
		return err
	})
	if err != nil {
		return err
	}
	var hashes []string
	for _, m := range sample {
		hashes = append(hashes, m.ContentHash)
	}
	near, err := st.FindVectors(ctx, model, hashes)
	if err != nil || len(near) == 0 {
		return fmt.Errorf("no stored vector to query near: %v", err)
	}
	r := rand.New(rand.NewPCG(1, 2))
	var times []time.Duration
	found := 0
	for i := 0; i < queries+10; i++ {
		q := randVec(r, dims)
		base := near[hashes[i%len(hashes)]]
		for j := range q {
			q[j] = base[j] + 0.7*q[j]
		}
		t0 := time.Now()
		hits, err := eng.SearchByVector(ctx, cairn.Query{Project: project, Limit: 10}, q)
		d := time.Since(t0)
		if err != nil {
			return err
		}
		if i >= 10 { // warm-up
			times = append(times, d)
			found += len(hits)
		}
	}
	slices.Sort(times)
	fmt.Printf("in-process SearchByVector, limit 10, %d queries (%.1f hits each): p50 %.2f ms, p99 %.2f ms (budget: p50 <= 10 ms)\n",
		len(times), float64(found)/float64(len(times)), ms(times[len(times)/2]), ms(times[len(times)*99/100]))
	if err := st.Close(); err != nil {
		return err
	}
	if cairnBin != "" {
		return serveRSS(cairnBin, dbPath)
	}
	return nil
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// fill imports n memories and stores a vector for each content, unless the
// database has them already.
func fill(ctx context.Context, eng *engine.Engine, st *sqlite.Store, n, dims int) error {
	c, err := st.CountVectors(ctx, model, project)
	if err != nil {
		return err
	}
	if c.Memories < n {
		start := time.Now()
		recs := func(yield func(cairn.ImportRecord) bool) {
			for i := c.Memories; i < n; i++ {
				m := &cairn.Memory{Project: project, Type: "note",
					Content: fmt.Sprintf("memory %d: a note about component %d and its behaviour under load %d", i, i%977, i%131)}
				if !yield(cairn.ImportRecord{Line: i + 1, Memory: m}) {
					return
				}
			}
		}
		rep, err := eng.Import(ctx, recs, cairn.ImportOptions{})
		if err != nil {
			return err
		}
		fmt.Printf("import: %d memories in %s\n", rep.Created, time.Since(start).Round(time.Millisecond))
	}
	start := time.Now()
	stored, after := 0, ""
	for {
		page, err := st.FindUnembedded(ctx, model, project, after, 2000)
		if err != nil {
			return err
		}
		if len(page) == 0 {
			break
		}
		hv := make([]cairn.HashVector, len(page))
		for i, ht := range page {
			h := fnv.New64a()
			h.Write([]byte(ht.Hash))
			hv[i] = cairn.HashVector{Hash: ht.Hash, Vector: randVec(rand.New(rand.NewPCG(h.Sum64(), 7)), dims)}
		}
		if err := st.PutVectors(ctx, model, hv); err != nil {
			return err
		}
		stored += len(page)
		after = page[len(page)-1].Hash
	}
	if stored > 0 {
		fmt.Printf("vectors: %d stored in %s\n", stored, time.Since(start).Round(time.Millisecond))
	}
	return nil
}

func randVec(r *rand.Rand, dims int) []float32 {
	v := make([]float32, dims)
	for i := range v {
		v[i] = float32(r.NormFloat64())
	}
	return v
}

// serveRSS starts `cairn serve` on the database with an embeddings
// endpoint configured (one that does not answer: serve loads the vectors
// at start without it), waits until it serves, and prints its resident
// set; then stops it.
func serveRSS(bin, dbPath string) error {
	cfgHome, err := os.MkdirTemp("", "cairn-vectors-cfg-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(cfgHome)
	if err := os.MkdirAll(filepath.Join(cfgHome, "cairn"), 0o700); err != nil {
		return err
	}
	toml := fmt.Sprintf("[embeddings]\nbase_url = %q\nmodel = %q\n", noURL, model)
	if err := os.WriteFile(filepath.Join(cfgHome, "cairn", "cairn.toml"), []byte(toml), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(bin, "--db", dbPath, "--project", project, "serve")
	cmd.Dir = cfgHome
	cmd.Env = append(os.Environ(), "XDG_CONFIG_HOME="+cfgHome)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan struct{})
		go func() { cmd.Wait(); close(done) }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}()
	sc := bufio.NewScanner(stderr)
	for sc.Scan() {
		line := sc.Text()
		if strings.Contains(line, "vectors") || strings.Contains(line, "serving") {
			fmt.Println("serve:", line)
		}
		if strings.Contains(line, "serving") {
			break
		}
	}
	go func() {
		for sc.Scan() {
		}
	}()
	ready := time.Since(start)
	time.Sleep(time.Second) // let the Go runtime settle
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", cmd.Process.Pid))
	if err != nil {
		return fmt.Errorf("cannot read the resident set (Linux only): %w", err)
	}
	for _, l := range strings.Split(string(status), "\n") {
		if strings.HasPrefix(l, "VmRSS:") || strings.HasPrefix(l, "VmHWM:") || strings.HasPrefix(l, "RssAnon:") || strings.HasPrefix(l, "RssFile:") {
			fmt.Printf("cairn serve, ready in %s: %s (budget: VmRSS <= 250 MB)\n", ready.Round(time.Millisecond), strings.Join(strings.Fields(l), " "))
		}
	}
	return nil
}
