package engine

import (
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/index"
	"github.com/cairn-dev/cairn/lexical"
	"github.com/cairn-dev/cairn/rank"
)

// analysedStrengths is each hit's Strength computed from the analysis of
// its memory's indexed text (without its title when other hits share it):
// the way Strength was computed before the scorer reported the terms each
// document holds, with its density for long memories and commonness.
func analysedStrengths(r *retrieved, hits []cairn.Hit, dated map[string]bool) []float64 {
	out := make([]float64, len(hits))
	hs := make([]hit, len(hits))
	for i := range hits {
		hs[i].Hit = hits[i]
	}
	shared := sharedTitles(hs)
	for i, h := range hits {
		if h.Explain.Match <= 0 {
			continue
		}
		part := partitionOf(h.Memory)
		w := r.idfs[part]
		total := 0.0
		for _, q := range w {
			total += q.Weight
		}
		if total <= 0 {
			continue
		}
		m := *h.Memory
		if shared != nil && shared[i] {
			m.Title = ""
		}
		terms, dl := lexical.Analyze(indexedText(&m), nil)
		tf := map[string]int{}
		for _, t := range terms {
			tf[t]++
		}
		held, distinct := 0.0, false
		for j, q := range w {
			if h.Explain.DateFactor > 1 && dated[q.Term] {
				held += q.Weight
				distinct = true
			} else if tf[q.Term] > 0 {
				held += q.Weight * r.common[part][j] * r.params.Density(tf[q.Term], float64(dl))
				distinct = distinct || r.common[part][j] == 1 && q.Weight > 0
			}
		}
		if distinct {
			out[i] = min(1, held/total)
		}
	}
	return out
}

// TestStrengthFromScorerEqualsAnalysis runs random searches (seeded) and
// wants every hit's Strength equal, to the bit, to the one computed from
// its memory's analysed text. The corpus has global-scope memories (the
// global partition), titles (one shared by many) and keys, memories
// longer than the length pivot, tags, file references (whose
// '*ref' terms are in the index but in no text), types (whose '*type'
// terms likewise), identifiers and dates in the text, and edited and
// deleted memories (dead documents); the queries repeat words, name
// dates, name files, narrow to types, leave out the global partition,
// and some have more terms with postings than index.Scored.Held has bits
// (their strengths come from the analysis). Each is searched twice, the
// second time from the kept retrieval at another clock reading. It runs
// with feedback off and on (feedback terms are scored after the query's).
func TestStrengthFromScorerEqualsAnalysis(t *testing.T) {
	t.Parallel()
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for _, c := range []struct {
		name string
		opts Options
	}{
		{"cached", Options{CacheBytes: 1 << 20}},
		{"uncached", Options{}},
		{"feedback", Options{CacheBytes: 1 << 20, Feedback: DefaultFeedback()}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			st := openStore(t)
			now := start
			opts := c.opts
			opts.Now = func() time.Time { return now }
			e := New(st, &opts)
			r := rand.New(rand.NewPCG(5, uint64(len(c.name))))
			zipf := rand.NewZipf(r, 1.1, 3, 300)
			word := func() string { return fmt.Sprintf("w%d", zipf.Uint64()) }
			types := []string{"note", "decision", "fix", "pitfall", "learning"}
			files := []string{"engine/search.go", "index/score.go", "cmd/cairn/main.go", "docs/*.md", "README.md"}
			extras := []string{"AuthService.Refresh", "user_id", "January", "13 October", "2026-01-05", "retry-loop", "HTTPServer", "type", "ref"}
			var ids []string
			for i := range 900 {
				now = now.Add(time.Duration(r.IntN(8)) * time.Hour)
				nw := 2 + r.IntN(20)
				if r.IntN(15) == 0 {
					nw = 70 + r.IntN(150) // longer than the length pivot
				}
				words := make([]string, nw)
				for j := range words {
					words[j] = word()
					if r.IntN(12) == 0 {
						words[j] = extras[r.IntN(len(extras))]
					}
				}
				m := &cairn.Memory{
					Project:   "p",
					Type:      types[r.IntN(len(types))],
					Content:   strings.Join(words, " "),
					SessionID: fmt.Sprintf("s%d", i/6),
				}
				if r.IntN(8) == 0 {
					m.Scope = cairn.ScopeGlobal
				}
				switch r.IntN(12) {
				case 0, 1, 2:
					m.Title = word() + " " + word()
				case 3:
					m.Title = "Session summary" // a title many memories share
				}
				if r.IntN(10) == 0 {
					m.Key = fmt.Sprintf("key.%s", word())
				}
				if r.IntN(3) == 0 {
					m.FileRefs = []string{files[r.IntN(len(files))]}
				}
				if r.IntN(4) == 0 {
					m.Tags = []string{"area:" + word()}
				}
				ids = addAndChurn(t, e, r, ids, m, 30, editContent(func() string { return fmt.Sprintf("%s %s edited", word(), word()) }))
			}
			phrases := []string{"on 13 October", "on 5 January 2026", "2026-01-05", "yesterday", "last week", "in January", "3 days ago"}
			var scorerSaid, analysed, wide int
			for i := range 250 {
				q := cairn.Query{Project: "p", Limit: 1 + r.IntN(25), Now: now.Add(-time.Duration(r.IntN(400)) * time.Hour)}
				n := 1 + r.IntN(8)
				if r.IntN(6) == 0 {
					n = 70 + r.IntN(60) // past Held's bits, once the rare words are left out
				}
				var text []string
				for range n {
					text = append(text, word())
				}
				if r.IntN(3) == 0 {
					text = append(text, text[r.IntN(len(text))]) // a repeated word
				}
				if r.IntN(3) == 0 {
					text = append(text, phrases[r.IntN(len(phrases))])
				}
				if r.IntN(4) == 0 {
					text = append(text, files[r.IntN(len(files))])
				}
				if r.IntN(5) == 0 {
					text = append(text, extras[r.IntN(len(extras))])
				}
				r.Shuffle(len(text), func(a, b int) { text[a], text[b] = text[b], text[a] })
				q.Text = strings.Join(text, " ")
				switch r.IntN(5) {
				case 0:
					q.Types = []string{types[r.IntN(len(types))], types[r.IntN(len(types))]}
				case 1:
					q.NoGlobal = true
				}
				terms, kinds := queryWeights(q.Text)
				var ret *retrieved
				if err := st.View(t.Context(), func(tx cairn.Tx) error {
					var err error
					ret, err = e.retrieve(t.Context(), tx, q, terms, kinds, true, false)
					return err
				}); err != nil {
					t.Fatal(err)
				}
				for _, h := range ret.kept {
					if h.Match <= 0 {
						continue
					}
					if _, _, _, ok := ret.heldBits(h.Memory); ok {
						scorerSaid++
					} else {
						analysed++
					}
				}
				for _, sl := range ret.slots {
					if len(sl) > index.HeldTerms {
						wide++ // more query terms than bits, fewer of them with postings
					}
				}
				for again := range 2 {
					if again == 1 {
						q.Now = q.Now.Add(time.Duration(r.IntN(90)) * time.Hour)
					}
					xq := q
					xq.Explain = true
					hits, err := e.Search(t.Context(), xq)
					if err != nil {
						t.Fatal(err)
					}
					_, ph := rank.QueryPeriods(q.Text, q.Now)
					want := analysedStrengths(ret, hits, dateTerms(ph))
					for j, h := range hits {
						if h.Strength != want[j] {
							t.Fatalf("query %d (%q, types %v, no global %v), search %d: hit %s has strength %v, want %v (by analysis)",
								i, q.Text, q.Types, q.NoGlobal, again, h.Memory.ID, h.Strength, want[j])
						}
					}
				}
			}
			t.Logf("strength of %d hits from the scorer's bits, %d from analysis; %d partitions with more query terms than bits", scorerSaid, analysed, wide)
			if scorerSaid < 1000 || analysed < 100 {
				t.Errorf("%d hits from the scorer's bits, %d from analysis: the test does not exercise both ways", scorerSaid, analysed)
			}
			if termSlots([]index.Query{{Term: "w1", Weight: 1}}, nil, IndexVersion-1) != nil {
				t.Error("termSlots trusts a partition made by other index rules")
			}
		})
	}
}

// Typicality is the sum over the prompt's counted words of the log ratio
// of their smoothed rates in the project and in the other projects; it
// leaves out filler words and words no memory holds, and is not measured
// when either side holds fewer than commonFloor memories.
func TestTypicalityWeighsWordRates(t *testing.T) {
	t.Parallel()
	qs, kinds := queryWeights("thanks, the tile projection zebra")
	own := map[string]int64{"tile": 9, "project": 1, "thank": 30}
	rest := map[string]int64{"tile": 1, "project": 39}
	got, ok := typicality(qs, kinds, true, own, 99, rest, 399)
	// tile: (9.5/100)/(1.5/400); project: (1.5/100)/(39.5/400); "thanks"
	// is filler and "zebra" held nowhere: left out.
	want := math.Log(9.5/100/(1.5/400)) + math.Log(1.5/100/(39.5/400))
	if !ok || math.Abs(got-want) > 1e-12 {
		t.Errorf("typicality = %v, %v; want %v", got, ok, want)
	}
	if _, ok := typicality(qs, kinds, true, own, 99, rest, commonFloor-1); ok {
		t.Error("measured against other projects of fewer than commonFloor memories")
	}
	if _, ok := typicality(qs, kinds, true, own, commonFloor-1, rest, 399); ok {
		t.Error("measured for a project of fewer than commonFloor memories")
	}
	if _, ok := typicality(qs, kinds, true, nil, 99, nil, 399); ok {
		t.Error("measured for a prompt whose words no memory holds")
	}
}
