// Command locomo measures cairn's ranking on retrieval sets in the LoCoMo
// format (memories.jsonl and queries.jsonl: LoCoMo in ../shared/eval,
// BEAM in ../shared/eval/beam) in process: for each set it imports the
// memories into a fresh database, searches every question of the dev split
// through the engine and prints hit@1, hit@5, R@10 and MRR@10, overall
// and per category (questions without evidence and LoCoMo's adversarial
// ones are left out, as the eval's scorer does). With -out it also writes
// the rankings in the batch format for the eval's own scorer.
//
// It is a tuning tool, with the ranking's knobs as flags: bench/eval.sh is
// the end-to-end measurement through the binary, beside the baselines.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/rank"
	"github.com/cairn-dev/cairn/sqlite"
	"github.com/cairn-dev/cairn/wire"
)

type query struct {
	QID          string   `json:"qid"`
	Project      string   `json:"project"`
	Question     string   `json:"question"`
	Evidence     []string `json:"evidence"`
	Category     int      `json:"category"`
	CategoryName string   `json:"category_name"`
	Adversarial  bool     `json:"adversarial"`
	AskedAt      string   `json:"asked_at"`
	Split        string   `json:"split"`
}

type metrics struct {
	n                           int
	hit1, hit5, hit10, r10, mrr float64
}

func (m *metrics) add(ids, ev []string) {
	m.n++
	evs := map[string]bool{}
	for _, e := range ev {
		evs[e] = true
	}
	first := 0
	found := 0
	for i, id := range ids {
		if i >= 10 {
			break
		}
		if evs[id] {
			found++
			if first == 0 {
				first = i + 1
			}
		}
	}
	if first == 1 {
		m.hit1++
	}
	if first > 0 && first <= 5 {
		m.hit5++
	}
	if first > 0 {
		m.hit10++
		m.mrr += 1 / float64(first)
	}
	m.r10 += float64(found) / float64(len(ev))
}

func (m metrics) String() string {
	n := float64(max(m.n, 1))
	return fmt.Sprintf("n=%3d hit@1 %.3f hit@5 %.3f hit@10 %.3f R@10 %.3f MRR@10 %.3f", m.n, m.hit1/n, m.hit5/n, m.hit10/n, m.r10/n, m.mrr/n)
}

func main() {
	data := flag.String("data", "../shared/eval,../shared/eval/beam", "the sets' folders, comma-separated")
	out := flag.String("out", "", "write the rankings here (batch output format; with several sets, one file each: OUT.NAME)")
	k1 := flag.Float64("k1", 0, "BM25 k1 (0: default)")
	b := flag.Float64("b", -1, "BM25 b (-1: default)")
	pivot := flag.Float64("pivot", -1, "BM25 length pivot in terms (-1: default, 0: the average)")
	fb := flag.Bool("feedback", false, "turn feedback on")
	share := flag.Float64("share", -1, "neighbour share (-1: default)")
	cov := flag.Float64("cov", -1, "coverage share (-1: default)")
	back := flag.Float64("back", -1, "neighbour back factor (-1: default)")
	span := flag.Int("span", -1, "neighbour span (-1: default)")
	srcs := flag.Int("sources", -1, "neighbour sources (-1: default)")
	ncap := flag.Float64("ncap", -1, "neighbour cap (-1: default)")
	date := flag.Float64("date", -1, "date boost (-1: default)")
	sshare := flag.Float64("sshare", -1, "salience share (-1: default)")
	swing := flag.Float64("swing", -1, "salience swing (-1: default)")
	verbose := flag.Bool("v", false, "print each miss at 1")
	strength := flag.Bool("strength", false, "print, per floor, the share of questions whose best hit's strength clears it in their own project and in the next one")
	fbw := flag.Float64("fbw", 0, "feedback weight (0: default)")
	fbt := flag.Int("fbt", 0, "feedback terms (0: default)")
	fbd := flag.Int("fbd", 0, "feedback documents (0: default)")
	flag.Parse()
	opts := &engine.Options{Ranking: engine.DefaultRanking(), Weights: rank.DefaultWeights()}
	if *share >= 0 {
		opts.Ranking.NeighbourShare = *share
	}
	if *cov >= 0 {
		opts.Ranking.Coverage = *cov
	}
	if *back >= 0 {
		opts.Ranking.NeighbourBack = *back
	}
	if *span >= 0 {
		opts.Ranking.NeighbourSpan = *span
	}
	if *srcs >= 0 {
		opts.Ranking.NeighbourSources = *srcs
	}
	if *ncap >= 0 {
		opts.Ranking.NeighbourCap = *ncap
	}
	if *date >= 0 {
		opts.Ranking.DateBoost = *date
	}
	if *sshare >= 0 {
		opts.Weights.Share = *sshare
	}
	if *swing >= 0 {
		opts.Weights.Swing = *swing
	}
	if *fb || *fbw > 0 || *fbt > 0 || *fbd > 0 {
		fb := engine.DefaultFeedback()
		if *fbw > 0 {
			fb.Weight = *fbw
		}
		if *fbt > 0 {
			fb.Terms = *fbt
		}
		if *fbd > 0 {
			fb.Docs = *fbd
		}
		opts.Feedback = fb
	}
	if *k1 > 0 || *b >= 0 || *pivot >= 0 {
		opts.BM25 = engineParams(*k1, *b, *pivot)
	}
	sets := strings.Split(*data, ",")
	for _, dir := range sets {
		name := filepath.Base(filepath.Clean(dir))
		if _, err := os.Stat(filepath.Join(dir, "beam")); err == nil {
			name = "locomo" // the eval folder itself
		}
		path := ""
		if *out != "" {
			path = *out
			if len(sets) > 1 {
				path += "." + name
			}
		}
		if err := measure(dir, name, opts, path, *verbose, *strength); err != nil {
			log.Fatalf("%s: %v", dir, err)
		}
	}
}

// measure imports one set into a fresh database and prints its figures.
func measure(dir, name string, opts *engine.Options, out string, verbose, strength bool) error {
	ctx := context.Background()
	tmp, err := os.MkdirTemp("", "cairn-eval-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	st, err := sqlite.Open(ctx, filepath.Join(tmp, "eval.db"), nil)
	if err != nil {
		return err
	}
	defer st.Close()
	eng := engine.New(st, opts)
	f, err := os.Open(filepath.Join(dir, "memories.jsonl"))
	if err != nil {
		return err
	}
	_, err = eng.Import(ctx, wire.Read(f), cairn.ImportOptions{})
	f.Close()
	if err != nil {
		return err
	}
	qs, err := readQueries(filepath.Join(dir, "queries.jsonl"))
	if err != nil {
		return err
	}
	var w *bufio.Writer
	if out != "" {
		of, err := os.Create(out)
		if err != nil {
			return err
		}
		defer of.Close()
		w = bufio.NewWriter(of)
		defer w.Flush()
	}
	var projects []string
	seen := map[string]bool{}
	for _, q := range qs {
		if !seen[q.Project] {
			seen[q.Project] = true
			projects = append(projects, q.Project)
		}
	}
	sort.Strings(projects)
	next := func(p string) string {
		i := sort.SearchStrings(projects, p)
		return projects[(i+1)%len(projects)]
	}
	var own, foreign []float64
	all := metrics{}
	byCat := map[int]*metrics{}
	catName := map[int]string{}
	for _, q := range qs {
		now, _ := time.Parse(time.RFC3339, q.AskedAt)
		hits, err := eng.Search(ctx, cairn.Query{Project: q.Project, Text: q.Question, Limit: 50, Now: now})
		if err != nil {
			return fmt.Errorf("%s: %v", q.QID, err)
		}
		ids := make([]string, len(hits))
		for i, h := range hits {
			ids[i] = h.Memory.ID
		}
		if w != nil {
			json.NewEncoder(w).Encode(map[string]any{"qid": q.QID, "ids": ids})
		}
		if q.Split != "" && q.Split != "dev" || len(q.Evidence) == 0 || q.Adversarial || q.Category == 5 {
			continue
		}
		if strength {
			own = append(own, maxStrength(hits))
			fh, err := eng.Search(ctx, cairn.Query{Project: next(q.Project), Text: q.Question, Limit: 10, Now: now})
			if err != nil {
				return err
			}
			foreign = append(foreign, maxStrength(fh))
		}
		all.add(ids, q.Evidence)
		if byCat[q.Category] == nil {
			byCat[q.Category] = &metrics{}
			catName[q.Category] = q.CategoryName
		}
		byCat[q.Category].add(ids, q.Evidence)
		if verbose && (len(ids) == 0 || !contains(q.Evidence, ids[0])) {
			top := ""
			if len(hits) > 0 {
				top = hits[0].Memory.ID + " " + clip(hits[0].Memory.Content, 160)
			}
			fmt.Printf("MISS %s [%d] %q ev=%v\n   top: %s\n", q.QID, q.Category, q.Question, q.Evidence, top)
		}
	}
	fmt.Printf("%-8s overall %v\n", name, all)
	if strength {
		for _, f := range []float64{0.2, 0.3, 0.35, 0.4, 0.45, 0.5, 0.55, 0.6, 0.7} {
			fmt.Printf("floor %.2f: own %.3f clear, foreign %.3f clear\n", f, shareAbove(own, f), shareAbove(foreign, f))
		}
	}
	cats := []int{}
	for c := range byCat {
		cats = append(cats, c)
	}
	sort.Ints(cats)
	for _, c := range cats {
		label := fmt.Sprintf("cat %d", c)
		if catName[c] != "" {
			label = fmt.Sprintf("%d %.12s", c, catName[c])
		}
		fmt.Printf("%-8s %-16s %v\n", "", label, *byCat[c])
	}
	return nil
}

func readQueries(path string) ([]query, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var qs []query
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		var q query
		if err := json.Unmarshal(sc.Bytes(), &q); err != nil {
			return nil, err
		}
		qs = append(qs, q)
	}
	return qs, sc.Err()
}

func clip(s string, n int) string {
	r := []rune(s)
	if len(r) > n {
		return string(r[:n]) + "…"
	}
	return s
}

func contains(s []string, x string) bool {
	for _, v := range s {
		if v == x {
			return true
		}
	}
	return false
}

func engineParams(k1, b, pivot float64) index.Params {
	p := index.DefaultParams()
	if pivot >= 0 {
		p.Pivot = pivot
	}
	if k1 > 0 {
		p.K1 = k1
	}
	if b >= 0 {
		p.B = b
	}
	return p
}

func maxStrength(hits []cairn.Hit) float64 {
	best := 0.0
	for _, h := range hits {
		best = max(best, h.Strength)
	}
	return best
}

func shareAbove(xs []float64, floor float64) float64 {
	n := 0
	for _, x := range xs {
		if x >= floor {
			n++
		}
	}
	return float64(n) / float64(max(len(xs), 1))
}
