// Command gen writes a synthetic corpus of coding-agent memories, or a set
// of queries over it, for benchmarking cairn.
//
//	go run ./bench/gen -n 100000 -project bench -seed 1 > corpus.jsonl
//	go run ./bench/gen -queries 200 -seed 2 > queries.txt
//	go run ./bench/gen -queries 200 -seed 2 -batch -project bench > batch.jsonl
//
// The corpus is JSON Lines that `cairn import` reads. Its vocabulary
// (packages, CamelCase types, functions, snake_case names, file paths,
// technical words, error messages, commands, dependencies) is built from
// -vocab-seed and drawn with Zipf-like frequencies, so common words occur in
// several percent of the memories and rare identifiers in a handful. -seed
// drives the sampling; a corpus and a query set made with different -seed
// values but the same -vocab-seed share one vocabulary. Output is
// deterministic for given flags.
package main

import (
	"bufio"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"strings"
	"time"
)

func main() {
	n := flag.Int("n", 100000, "number of memories to write")
	project := flag.String("project", "bench", "project of the memories (and of -batch queries)")
	seed := flag.Uint64("seed", 1, "seed for sampling")
	vocabSeed := flag.Uint64("vocab-seed", 1, "seed for the project's vocabulary")
	queries := flag.Int("queries", 0, "write this many queries instead of memories, one per line")
	batch := flag.Bool("batch", false, "with -queries: write `cairn search --batch` lines {qid, project, query, now, limit}")
	now := flag.String("now", "2026-11-01T00:00:00Z", "end of the corpus's time span; the \"now\" of -batch queries")
	limit := flag.Int("limit", 10, "with -batch: the limit of each query")
	idPrefix := flag.String("id-prefix", "bench", "memories' ids are PREFIX-000001, PREFIX-000002, …: give each corpus of a multi-project database its own")
	flag.Parse()

	end, err := time.Parse(time.RFC3339, *now)
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: -now: %v\n", err)
		os.Exit(2)
	}
	v := newVocab(*vocabSeed)
	r := rand.New(rand.NewPCG(*seed, 0xda3e39cb94b95bdb))
	w := bufio.NewWriterSize(os.Stdout, 1<<20)
	if *queries > 0 {
		err = writeQueries(w, v, r, *queries, *batch, *project, *now, *limit)
	} else {
		err = writeCorpus(w, v, r, *n, *project, *idPrefix, end)
	}
	if err == nil {
		err = w.Flush()
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "gen: %v\n", err)
		os.Exit(1)
	}
}

// memory is one output record, in the field order of cairn's export format.
type memory struct {
	ID         string   `json:"id"`
	Project    string   `json:"project"`
	Type       string   `json:"type"`
	Title      string   `json:"title"`
	Content    string   `json:"content"`
	Tags       []string `json:"tags"`
	FileRefs   []string `json:"file_refs"`
	Confidence float64  `json:"confidence"`
	CreatedAt  string   `json:"created_at"`
	UseCount   int      `json:"use_count"`
}

func writeCorpus(w *bufio.Writer, v *vocab, r *rand.Rand, n int, project, idPrefix string, end time.Time) error {
	byType := map[string][]template{}
	for _, t := range templates {
		byType[t.typ] = append(byType[t.typ], t)
	}
	var cum []int
	total := 0
	for _, t := range typeOrder {
		total += typeWeights[t]
		cum = append(cum, total)
	}
	pickType := func() string {
		x := r.IntN(total)
		for i, c := range cum {
			if x < c {
				return typeOrder[i]
			}
		}
		return typeOrder[len(typeOrder)-1]
	}
	// Templates within a type: the first ones are a little more common.
	tz := map[string]*zipf{}
	for t, ts := range byType {
		tz[t] = newZipf(len(ts), 0.6, 1)
	}
	ez := newZipf(len(extras), 0.5, 1)

	span := 365 * 24 * time.Hour
	start := end.Add(-span)
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	f := &filler{v: v, r: r}
	// Contents are unique: cairn folds identical contents into one memory,
	// and the benchmark wants exactly n of them.
	seen := make(map[string]struct{}, n)
	for i := 0; i < n; i++ {
		var typ, title, content string
		for {
			f.reset(false)
			typ = pickType()
			t := byType[typ][tz[typ].sample(r)]
			sentences := []string{f.fill(t.body)}
			want := pickWeighted(r, []int{30, 35, 23, 12}) // 1–4 sentences
			for len(sentences) < want {
				sentences = append(sentences, f.fill(extras[ez.sample(r)]))
			}
			content = strings.Join(sentences, " ")
			for len(content) < 80 && len(sentences) < 6 {
				sentences = append(sentences, f.fill(extras[ez.sample(r)]))
				content = strings.Join(sentences, " ")
			}
			for len(content) > 600 && len(sentences) > 1 {
				sentences = sentences[:len(sentences)-1]
				content = strings.Join(sentences, " ")
			}
			content = clip(content, 600)
			if _, dup := seen[content]; !dup {
				seen[content] = struct{}{}
				title = clip(f.fill(t.title), 120)
				break
			}
		}

		m := memory{
			ID:         fmt.Sprintf("%s-%06d", idPrefix, i+1),
			Project:    project,
			Type:       typ,
			Title:      title,
			Content:    content,
			Tags:       f.tags(),
			FileRefs:   f.fileRefs(),
			Confidence: math.Round((0.3+0.65*math.Sqrt(r.Float64()))*100) / 100,
			UseCount:   useCount(r),
		}
		// Later ids are newer, and recent months hold more memories.
		pos := math.Pow((float64(i)+r.Float64())/float64(n), 0.7)
		m.CreatedAt = start.Add(time.Duration(pos * float64(span))).Truncate(time.Second).UTC().Format(time.RFC3339)
		if err := enc.Encode(&m); err != nil {
			return err
		}
	}
	return nil
}

func writeQueries(w *bufio.Writer, v *vocab, r *rand.Rand, n int, batch bool, project, now string, limit int) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	qz := newZipf(len(queryTemplates), 0.4, 2)
	f := &filler{v: v, r: r}
	for i := 0; i < n; i++ {
		var q string
		for tries := 0; ; tries++ {
			// About a third of the queries look for rare identifiers.
			f.reset(r.IntN(3) == 0)
			q = f.fill(queryTemplates[qz.sample(r)])
			nw := len(strings.Fields(q))
			if nw >= 2 && nw <= 8 && !strings.HasPrefix(q, "-") || tries > 50 {
				break
			}
		}
		if !batch {
			if _, err := fmt.Fprintln(w, q); err != nil {
				return err
			}
			continue
		}
		line := struct {
			QID     string `json:"qid"`
			Project string `json:"project"`
			Query   string `json:"query"`
			Now     string `json:"now"`
			Limit   int    `json:"limit"`
		}{fmt.Sprintf("q%04d", i+1), project, q, now, limit}
		if err := enc.Encode(&line); err != nil {
			return err
		}
	}
	return nil
}

// filler fills templates for one memory or query: each placeholder name is
// bound to one value for the whole record.
type filler struct {
	v     *vocab
	r     *rand.Rand
	rare  bool
	keys  []string
	vals  []string
	files []string
	dom   string
}

func (f *filler) reset(rare bool) {
	f.rare = rare
	f.keys, f.vals, f.files, f.dom = f.keys[:0], f.vals[:0], f.files[:0], ""
}

func (f *filler) fill(s string) string {
	if strings.IndexByte(s, '{') < 0 {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '{')
		if i < 0 {
			b.WriteString(s)
			break
		}
		j := strings.IndexByte(s[i:], '}')
		if j < 0 {
			b.WriteString(s)
			break
		}
		b.WriteString(s[:i])
		b.WriteString(f.get(s[i+1 : i+j]))
		s = s[i+j+1:]
	}
	return b.String()
}

// get returns the value bound to a placeholder, drawing it on first use.
func (f *filler) get(key string) string {
	for i, k := range f.keys {
		if k == key {
			return f.vals[i]
		}
	}
	val := f.draw(strings.TrimRight(key, "0123456789"))
	f.keys = append(f.keys, key)
	f.vals = append(f.vals, val)
	return val
}

func (f *filler) pick(xs []string) string { return xs[f.r.IntN(len(xs))] }

func (f *filler) draw(cls string) string {
	r := f.r
	switch cls {
	case "Ds":
		return f.v.depShort[f.v.classes["D"].pick(r, f.rare)]
	case "TestName":
		var base string
		if r.IntN(2) == 0 {
			base = f.v.classes["T"].pick(r, f.rare)
		} else {
			base = strings.TrimPrefix(f.v.classes["F"].pick(r, f.rare), "New")
		}
		if r.IntN(2) == 0 {
			w := f.v.classes["w"].pick(r, false)
			base += "_" + strings.ToUpper(w[:1]) + strings.ReplaceAll(w[1:], "_", "")
		}
		return "Test" + base
	case "ver":
		return fmt.Sprintf("v%d.%d.%d", r.IntN(4), r.IntN(30), r.IntN(12))
	case "n":
		return itoa(2 + int(math.Pow(r.Float64(), 2)*500))
	case "pct":
		return itoa(1 + r.IntN(30))
	case "dur":
		return f.pick(durations)
	case "mig":
		return padNum(r.IntN(240)+1, 4) + "_add_" + f.get("S")
	case "topic":
		return f.get("d") + "." + f.v.classes["w"].pick(r, false) + "s"
	case "glob":
		return f.fill(f.pick(globs))
	case "reason":
		return f.fill(f.pick(reasons))
	case "fixaction":
		return f.fill(f.pick(fixactions))
	case "cause":
		return f.fill(f.pick(causes))
	case "next":
		return f.fill(f.pick(nexts))
	case "question":
		return f.fill(f.pick(questions))
	case "infra":
		return f.pick(infras)
	}
	c := f.v.classes[cls]
	if c == nil {
		return cls
	}
	val := c.pick(r, f.rare && cls != "w" && cls != "d")
	switch cls {
	case "e", "c":
		val = f.fill(val) // errors and commands name identifiers too
	case "f":
		f.files = append(f.files, val)
	case "d":
		if f.dom == "" {
			f.dom = val
		}
	}
	return val
}

// tags draws 0–4 tags; a memory about a domain often carries its area tag.
func (f *filler) tags() []string {
	n := pickWeighted(f.r, []int{20, 35, 25, 12, 8}) - 1
	out := make([]string, 0, n)
	if n > 0 && f.dom != "" && f.r.IntN(5) < 2 {
		out = append(out, "area:"+f.dom)
	}
	for tries := 0; len(out) < n && tries < 20; tries++ {
		t := f.v.classes["tag"].pick(f.r, false)
		if !contains(out, t) {
			out = append(out, t)
		}
	}
	return out
}

// fileRefs draws 0–3 paths or globs, preferring files the content names.
func (f *filler) fileRefs() []string {
	n := pickWeighted(f.r, []int{35, 40, 18, 7}) - 1
	out := make([]string, 0, n)
	for _, p := range f.files {
		if len(out) < n && !contains(out, p) && f.r.IntN(10) < 7 {
			out = append(out, p)
		}
	}
	for tries := 0; len(out) < n && tries < 20; tries++ {
		var p string
		if f.r.IntN(5) == 0 {
			p = f.fill(f.pick(globs))
		} else {
			p = f.v.classes["f"].pick(f.r, false)
		}
		if !contains(out, p) {
			out = append(out, p)
		}
	}
	return out
}

func useCount(r *rand.Rand) int {
	u := r.Float64()
	c := int(math.Pow(1/(1-u*0.9999), 0.7)) - 1
	if c > 500 {
		c = 500
	}
	return c
}

func pickWeighted(r *rand.Rand, weights []int) int {
	total := 0
	for _, w := range weights {
		total += w
	}
	x := r.IntN(total)
	for i, w := range weights {
		if x < w {
			return i + 1
		}
		x -= w
	}
	return len(weights)
}

func contains(xs []string, s string) bool {
	for _, x := range xs {
		if x == s {
			return true
		}
	}
	return false
}

// clip shortens s to at most max bytes at a word boundary.
func clip(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := strings.LastIndexByte(s[:max-3], ' ')
	if cut < max/2 {
		cut = max - 3
	}
	return strings.TrimRight(s[:cut], " ,;:") + "…"
}
