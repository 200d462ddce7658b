package contextpack

import (
	"fmt"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"
)

// The renderer prices items without rendering them, renders only those it
// places, and writes their display text in one pass. The tests here hold
// it to a straightforward renderer that renders every item with flatten
// and the format's escape function, prices it by its text, and checks the
// rendered text against MaxChars: the two must agree to the byte.

// referenceItem renders it the straightforward way.
func referenceItem(f format, it *item) string {
	switch f.(type) {
	case markdownFormat:
		var b strings.Builder
		title, content := mdEscape(flatten(it.title)), mdEscape(flatten(it.content))
		b.WriteString("- ")
		if it.sec.groups == nil {
			b.WriteString("[" + mdEscape(flatten(it.typ)) + "] ")
		}
		if f := itemFlag(it); f != "" {
			b.WriteString(mdEscape(flagMark(f)))
		}
		if it.in.Stale {
			b.WriteString(staleMark)
		}
		if title != "" {
			b.WriteString("**" + title + "**")
			if content != "" {
				b.WriteString(": ")
			}
		}
		b.WriteString(content)
		var parts []string
		if it.id != "" {
			parts = append(parts, "id "+mdEscape(flatten(it.id)))
		}
		if d := date(it.in.CreatedAt); d != "" {
			parts = append(parts, d)
		}
		if it.note != "" {
			parts = append(parts, it.note)
		}
		if len(parts) > 0 {
			b.WriteString(" (" + strings.Join(parts, ", ") + ")")
		}
		b.WriteByte('\n')
		return b.String()
	case xmlFormat:
		var b strings.Builder
		b.WriteString(`<memory id="` + xmlEscape(flatten(it.id)) + `" type="` + xmlEscape(flatten(it.typ)) +
			`" value="` + shortValue(it.value) + `"`)
		if d := date(it.in.CreatedAt); d != "" {
			b.WriteString(` date="` + d + `"`)
		}
		if it.shortened {
			b.WriteString(` shortened="true"`)
		}
		if f := itemFlag(it); f != "" {
			b.WriteString(` flag="` + xmlEscape(f) + `"`)
		}
		if it.in.Stale {
			b.WriteString(` stale="true"`)
		}
		if t := flatten(it.title); t != "" {
			b.WriteString(` title="` + xmlEscape(t) + `"`)
		}
		b.WriteString(">" + xmlEscape(flatten(it.content)) + "</memory>\n")
		return b.String()
	default:
		return jsonItemText(it)
	}
}

// referenceRender is Render with every item rendered and priced by its
// text, each pass of the annotations packed from scratch, and the text
// itself checked against MaxChars.
func referenceRender(req Request) Result {
	req.annotate = false
	plain := referenceLayout(req)
	if req.Now.IsZero() || formatFor(req.Format) != (markdownFormat{}) || len(plain.Placed) == 0 {
		return plain
	}
	req.annotate = true
	noted := referenceLayout(req)
	if len(plain.Placed) != len(noted.Placed) {
		return plain
	}
	for i, p := range plain.Placed {
		if q := noted.Placed[i]; p.ID != q.ID || p.Section != q.Section || p.Shortened != q.Shortened {
			return plain
		}
	}
	return noted
}

func referenceLayout(req Request) Result {
	r := newRenderer(&req, nil)
	for _, it := range r.items {
		it.piece = referenceItem(r.f, it)
		it.cost = costOf(it.piece).add(costOf(r.f.itemSep()))
		it.density = it.value / float64(max(it.cost.tokens, 1))
	}
	r.pack()
	if r.maxChars > 0 {
		for r.measure().runes > r.maxChars && r.dropOne() {
		}
		for utf8.RuneCountInString(r.text()) > r.maxChars && r.dropOne() {
		}
	}
	return r.result()
}

// oddPieces are the bits random text is made of: what flattening,
// escaping, fence breaking, cleaning and the token estimate treat apart.
var oddPieces = []string{
	"a", "word", "Refresh", " ", "  ", "\t", "\n", "\r\n", "\r", "\v", "\f", "\n\n \t\n",
	"<", ">", "&", `"`, "'", "</cairn-context>", "<memory id=\"x\">", "&amp;",
	"`", "``", "```", "````", "~", "~~", "~~~", "~~~~~", "`~`", "#", "## ", "- [decision] ",
	"(id mem-x)", "…", "...", "⏎", " ⏎ ", "‹", "ˋ", "˜", "é", "中文", "😀", "\u0301",
	"\u00a0", "\u0085", "\u2028", "\u2029", "\u3000", "\u200b", "\u202e", "\ufeff", "\U000E0041", "\U000E0100",
	"\ufffe", "\uffff", "\ufffd", "\xff", "\xe4\xb8", "\xc3", "\x00", "\x1b[31m", "\x7f", "\u0080",
}

func oddText(r *rand.Rand, pieces int) string {
	var b strings.Builder
	for range r.IntN(pieces + 1) {
		b.WriteString(oddPieces[r.IntN(len(oddPieces))])
	}
	return b.String()
}

// randomText is empty, odd, plain or long text.
func randomText(r *rand.Rand) string {
	switch r.IntN(6) {
	case 0:
		return ""
	case 1:
		return oddText(r, 40)
	case 2:
		return strings.Repeat("The session manager keeps one worktree per task; ", 1+r.IntN(40))
	case 3:
		return strings.Repeat("每个任务使用一个独立的工作树。", 1+r.IntN(30)) + oddText(r, 5)
	default:
		return "Run `go test ./engine -run TestRefresh` <fast> & \"quoted\"; " + oddText(r, 8)
	}
}

var randomTimes = []time.Time{
	{}, time.Date(2026, 2, 4, 10, 30, 0, 0, time.UTC), time.Date(2025, 12, 31, 23, 59, 0, 0, time.FixedZone("x", -5*3600)),
	time.Date(12345, 1, 2, 0, 0, 0, 0, time.UTC), time.Date(-44, 3, 15, 0, 0, 0, 0, time.UTC), time.Date(1, 1, 1, 0, 0, 0, 1, time.UTC),
}

var randomValues = []float64{0, 0.1, 0.5, 0.9, 1, 1.14, 2.5, 1e7, -0.3, math.NaN(), math.Inf(1), math.Inf(-1), 0.123456}

func randomItem(r *rand.Rand, ids []string) Item {
	it := Item{
		ID:        ids[r.IntN(len(ids))],
		Type:      []string{"", "pitfall", "decision", "error_solution", "custom_type", "a<b>&\"c\"", "fix\n## x", " ```x``` "}[r.IntN(8)],
		Title:     randomText(r),
		Content:   randomText(r),
		CreatedAt: randomTimes[r.IntN(len(randomTimes))],
		Value:     randomValues[r.IntN(len(randomValues))],
		Reasons:   []Reason{{Name: "bm25", Value: 0.5}},
		Stale:     r.IntN(5) == 0,
		Relevance: []float64{0, 0.87, 1, 1.5, 0.004}[r.IntN(5)],
	}
	if r.IntN(3) == 0 && it.Content != "" {
		it.Title = it.Content[:r.IntN(len(it.Content)+1)] // a title that repeats the content
	}
	if r.IntN(6) == 0 {
		it.Flag = []string{"override", "role-syntax</memory>\n# x \"q\" & ```", oddText(r, 4)}[r.IntN(3)]
	}
	if r.IntN(3) == 0 {
		it.Tags, it.FileRefs = []string{oddText(r, 4), "auth"}, []string{"internal/auth/*.go", oddText(r, 3)}
	}
	return it
}

// randomRequest is a request across formats, budgets, shares, character
// caps, item limits, annotations, indexes and free text.
func randomRequest(r *rand.Rand) Request {
	ids := []string{"", "mem-<0>", "mem\n1"}
	for i := range 40 {
		ids = append(ids, fmt.Sprintf("mem-%d", i))
	}
	req := Request{
		Project:       []string{"", "cairn", "evil\">\n</cairn-context>"}[r.IntN(3)],
		Format:        []string{"", FormatMarkdown, FormatMarkdown, FormatXML, FormatJSON, "bogus"}[r.IntN(6)],
		Budget:        []int{0, 0, 60, 200, 400, 900, 1500, 1500, 4000, -3}[r.IntN(10)],
		MaxChars:      []int{0, 0, 0, 250, 500, 900, 1500, 3000, ClaudeCodeMaxChars, -1}[r.IntN(10)],
		MaxItemTokens: []int{0, 0, 8, 30, 60, 400}[r.IntN(6)],
		Explain:       r.IntN(4) == 0,
	}
	if r.IntN(2) == 0 {
		req.Now = time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	}
	for range 1 + r.IntN(5) {
		sec := Section{
			Kind: []string{"pinned", "decisions", "relevant", "sessions", "odd<kind>"}[r.IntN(5)], Title: []string{"", "Relevant Knowledge", "A <title>"}[r.IntN(3)],
			Priority: r.IntN(3), GroupByType: r.IntN(3) == 0,
		}
		if r.IntN(3) == 0 {
			sec.Share, sec.ShareGroup = []float64{0.1, 0.3, 0.6}[r.IntN(3)], []string{"static", "other"}[r.IntN(2)]
		}
		if r.IntN(5) == 0 {
			sec.Text = randomText(r)
		}
		for range r.IntN(14) {
			sec.Items = append(sec.Items, randomItem(r, ids))
		}
		req.Sections = append(req.Sections, sec)
	}
	if r.IntN(4) == 0 {
		req.Index = []IndexType{
			{Type: "decision", Count: 3, Recent: []IndexEntry{{Title: randomText(r), Date: randomTimes[1]}, {Title: "API uses REST", By: "claude"}}},
			{Type: "context", Count: 0},
			{Type: "pattern", Count: 1, Recent: []IndexEntry{{Title: oddText(r, 6)}}},
		}
		req.Conversations = []string{"2026-02", "2026-01"}[:r.IntN(3)]
	}
	return req
}

func TestRenderMatchesTheReferenceRenderer(t *testing.T) {
	t.Parallel()
	n := 3000
	if testing.Short() {
		n = 300
	}
	for seed := range n {
		checkAgainstReference(t, randomRequest(rand.New(rand.NewPCG(uint64(seed), 7))))
	}
}

// FuzzRenderMatchesTheReferenceRenderer mixes the fuzzer's text into a
// random request.
func FuzzRenderMatchesTheReferenceRenderer(f *testing.F) {
	f.Add(uint64(1), "</cairn-context>\n```\n# x", "a  b\t\u2028c")
	f.Add(uint64(2), "", "\xff<&>\"~~~")
	f.Fuzz(func(t *testing.T, seed uint64, a, b string) {
		r := rand.New(rand.NewPCG(seed, 7))
		req := randomRequest(r)
		for i := range req.Sections {
			for j := range req.Sections[i].Items {
				it := &req.Sections[i].Items[j]
				switch r.IntN(4) {
				case 0:
					it.Title, it.Content = a, b
				case 1:
					it.Content, it.ID = a+b, a
				case 2:
					it.Type, it.Flag = b, a
				}
			}
		}
		checkAgainstReference(t, req)
	})
}

func checkAgainstReference(t *testing.T, req Request) {
	t.Helper()
	got, want := Render(req), referenceRender(req)
	if !reflect.DeepEqual(got, want) {
		if got.Text != want.Text {
			t.Fatalf("format %q, budget %d, max chars %d: text\n%s\nwant\n%s", req.Format, req.Budget, req.MaxChars, got.Text, want.Text)
		}
		t.Fatalf("format %q, budget %d, max chars %d: result\n%#v\nwant\n%#v", req.Format, req.Budget, req.MaxChars, got, want)
	}
	if req.MaxChars > 0 && utf8.RuneCountInString(got.Text) > req.MaxChars {
		t.Fatalf("%d characters, more than %d", utf8.RuneCountInString(got.Text), req.MaxChars)
	}
}

// Every item's price is the size of its straightforward rendering, and
// what is written for it is that rendering, in every format, annotated or
// not, under a type's sub-heading or not.
func TestItemsArePricedAtTheirRenderedSize(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(11, 7))
	for i := range 4000 {
		req := Request{
			Format:        []string{FormatMarkdown, FormatXML, FormatJSON}[i%3],
			MaxItemTokens: []int{0, 10, 50, 1000}[r.IntN(4)],
			Now:           time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC),
			annotate:      r.IntN(2) == 0,
			Sections: []Section{{Kind: "relevant", GroupByType: r.IntN(2) == 0, Items: []Item{
				randomItem(r, []string{"", "mem-1", "mem-<2>", oddText(r, 5)}),
			}}},
		}
		rd := newRenderer(&req, nil)
		it := rd.items[0]
		want := referenceItem(rd.f, it)
		if c := costOf(want).add(costOf(rd.f.itemSep())); it.cost != c {
			t.Fatalf("%s: item priced %+v, its text costs %+v: %q", req.Format, it.cost, c, want)
		}
		var b strings.Builder
		b.WriteString("x")
		rd.f.writeItem(&b, it)
		if got := b.String()[1:]; got != want {
			t.Fatalf("%s: wrote\n%q\nwant\n%q", req.Format, got, want)
		}
		if req.Format == FormatMarkdown && !req.annotate {
			// Annotated from the plain item, as Render does.
			noted := req
			noted.annotate = true
			it := newRenderer(&noted, rd).items[0]
			want := referenceItem(rd.f, it)
			if c := costOf(want).add(costOf(rd.f.itemSep())); it.cost != c || it.note == "" && annotation(it.in, req.Now) != "" {
				t.Fatalf("annotated item priced %+v, its text costs %+v: %q", it.cost, c, want)
			}
		}
	}
}

// writeDisplay writes what flatten and the escape functions make of any
// text, and displaySize is its size.
func TestDisplayTextInOnePass(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(5, 7))
	texts := []string{"", " ", "\n", "a", " a ", "a\n\n b", "```", "a```b", "``", "~~~~", "<>&\""}
	for range 20000 {
		texts = append(texts, oddText(r, 12))
	}
	for _, s := range texts {
		for _, s := range []string{s, clean(s)} {
			for _, e := range []struct {
				name   string
				escape func(string) string
				e      *escaping
			}{{"markdown", mdEscape, mdEscaping()}, {"xml", xmlEscape, xmlEscaping()}} {
				want := e.escape(flatten(s))
				var b strings.Builder
				b.WriteString("x") // the first visible rune is not the first of b
				writeDisplay(&b, s, e.e)
				if got := b.String()[1:]; got != want {
					t.Fatalf("%s: %q written as %q, want %q", e.name, s, got, want)
				}
				got, asIs := measureDisplay(s, e.e)
				if got != sizeOf(want) {
					t.Fatalf("%s: %q sized %+v, want %+v", e.name, s, got, sizeOf(want))
				}
				if asIs != (want == s) {
					t.Fatalf("%s: %q shown as it is: %v, but it is shown as %q", e.name, s, asIs, want)
				}
				if got, want := shows(s), want != ""; got != want {
					t.Fatalf("shows(%q) = %v, want %v", s, got, want)
				}
			}
		}
	}
}

// referenceSize counts s rune by rune: the quarters of EstimateTokens
// and the runes of utf8.RuneCountInString.
func referenceSize(s string) size {
	var z size
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if n == 1 && r != utf8.RuneError {
			z.quarters++
		} else {
			z.quarters += runeQuarters(r, n)
		}
		z.runes++
		i += n
	}
	return z
}

// The scans that read eight bytes at a time (sizeOf, quarters, isPlain)
// agree with byte-by-byte ones on random text and on plain text with any
// one byte anywhere in it.
func TestWordAtATimeScans(t *testing.T) {
	t.Parallel()
	var texts []string
	r := rand.New(rand.NewPCG(9, 7))
	for i := range 5000 {
		texts = append(texts, oddText(r, i%40))
	}
	const plain = "Plain text, 24 bytes ok."
	for i := range len(plain) {
		for c := range 256 {
			texts = append(texts, plain[:i]+string([]byte{byte(c)})+plain[i+1:])
		}
	}
	for _, s := range texts {
		want := referenceSize(s)
		if got := sizeOf(s); got != want {
			t.Fatalf("sizeOf(%q) = %+v, want %+v", s, got, want)
		}
		if got := quarters(s); got != want.quarters {
			t.Fatalf("quarters(%q) = %d, want %d", s, got, want.quarters)
		}
		plain := true
		for i := range len(s) {
			plain = plain && s[i] >= 0x20 && s[i] < 0x7f
		}
		if got := isPlain(s); got != plain {
			t.Fatalf("isPlain(%q) = %v, want %v", s, got, plain)
		}
	}
}

// referenceShorten is shorten counting every item's tokens.
func referenceShorten(title, content, id string, limit int) (string, string, bool) {
	lq := limit * 4
	tq := quarters(title)
	if tq+quarters(content) <= lq {
		return title, content, false
	}
	pointer := "…"
	if id != "" {
		pointer = "… (full text: cairn show " + id + ")"
	}
	if tq > lq/2 {
		title = cutWords(title, lq/2-quarters("…")) + "…"
		tq = quarters(title)
	}
	room := max(lq-tq-quarters(pointer), 0)
	return title, cutWords(content, room) + pointer, true
}

// Cleaned text costs at most 4/3 of a quarter token a byte, so shorten
// need not count the tokens of text shorter than that, and cuts what it
// cuts where counting them cuts it.
func TestShortenCountsOnlyWhatMayBeTooLong(t *testing.T) {
	t.Parallel()
	r := rand.New(rand.NewPCG(13, 7))
	for i := range 20000 {
		title, content := clean(oddText(r, 30)), clean(randomText(r))
		if i%2 == 0 {
			title, content = clean(strings.Repeat("中", r.IntN(200))), clean(strings.Repeat("\xff中é", r.IntN(100)))
		}
		for _, s := range []string{title, content} {
			if 3*quarters(s) > 4*len(s) {
				t.Fatalf("%q: %d quarter tokens in %d bytes", s, quarters(s), len(s))
			}
		}
		limit := 1 + r.IntN(200)
		gt, gc, gs := shorten(title, content, "mem-1", limit)
		wt, wc, ws := referenceShorten(title, content, "mem-1", limit)
		if gt != wt || gc != wc || gs != ws {
			t.Fatalf("shorten(%q, %q, %d) = %q, %q, %v; want %q, %q, %v", title, content, limit, gt, gc, gs, wt, wc, ws)
		}
	}
}

// referenceAgo is Ago with a string per part.
func referenceAgo(t, now time.Time) string {
	d := now.Sub(t)
	if d < 0 {
		return "in the future"
	}
	if d < time.Minute {
		return "just now"
	}
	unit := func(n int, name string) string {
		if n == 1 {
			return "1 " + name + " ago"
		}
		return fmt.Sprint(n) + " " + name + "s ago"
	}
	switch {
	case d < time.Hour:
		return unit(int(d/time.Minute), "minute")
	case d < 24*time.Hour:
		return unit(int(d/time.Hour), "hour")
	case d < 30*24*time.Hour:
		return unit(int(d/(24*time.Hour)), "day")
	case d < 365*24*time.Hour:
		return unit(int(d/(30*24*time.Hour)), "month")
	}
	return unit(int(d/(365*24*time.Hour)), "year")
}

func TestAgoAndAnnotationsAreWrittenAsTheyRead(t *testing.T) {
	t.Parallel()
	now := time.Date(2026, 3, 1, 0, 0, 0, 0, time.UTC)
	var ds []time.Duration
	for _, u := range []time.Duration{time.Second, time.Minute, time.Hour, 24 * time.Hour, 30 * 24 * time.Hour, 365 * 24 * time.Hour} {
		for _, k := range []time.Duration{0, 1, 2, 11, 29, 59, 60, 364, 1000} {
			ds = append(ds, k*u, k*u-1, k*u+1, -k*u)
		}
	}
	ds = append(ds, math.MaxInt64, math.MinInt64)
	for _, d := range ds {
		created := now.Add(-d)
		if got, want := Ago(created, now), referenceAgo(created, now); got != want {
			t.Fatalf("Ago(%v before) = %q, want %q", d, got, want)
		}
		for _, rel := range []float64{0, 0.004, 0.005, 0.87, 1, 1.01, -1, math.NaN()} {
			for _, c := range []time.Time{{}, created} {
				var parts []string
				if !c.IsZero() {
					parts = append(parts, referenceAgo(c, now))
				}
				if rel > 0 && rel <= 1 {
					parts = append(parts, fmt.Sprint(int(math.Round(rel*100)))+"% relevant")
				}
				if got, want := annotation(&Item{CreatedAt: c, Relevance: rel}, now), strings.Join(parts, ", "); got != want {
					t.Fatalf("annotation(%v, %v) = %q, want %q", c, rel, got, want)
				}
			}
		}
	}
}
