package engine_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
)

// rankingEngine is an engine over a fresh store, with a fixed clock.
func rankingEngine(t *testing.T, now time.Time) *engine.Engine {
	t.Helper()
	return engine.New(newStore(t), &engine.Options{Now: func() time.Time { return now }})
}

func put(t *testing.T, e *engine.Engine, m *cairn.Memory) *cairn.Memory {
	t.Helper()
	if m.Project == "" {
		m.Project = "p"
	}
	res, err := e.AddMemory(t.Context(), m)
	if err != nil {
		t.Fatalf("add %q: %v", m.Content, err)
	}
	return res.Memory
}

func hitIDs(hits []cairn.Hit) []string {
	ids := make([]string, len(hits))
	for i, h := range hits {
		ids[i] = h.Memory.ID
	}
	return ids
}

func searchHits(t *testing.T, e *engine.Engine, q cairn.Query) []cairn.Hit {
	t.Helper()
	if q.Project == "" {
		q.Project = "p"
	}
	q.Explain = true // the tests read the parts of the scores
	hits, err := e.Search(t.Context(), q)
	if err != nil {
		t.Fatalf("search %q: %v", q.Text, err)
	}
	return hits
}

var day0 = time.Date(2026, 6, 15, 12, 0, 0, 0, time.UTC)

// A compound that every memory of the project holds (the project's name)
// is one query word: its whole form, parts and joined spelling share one
// word's weight, so the memory that holds the question's other words
// wins over one that only repeats the compound.
func TestCompoundQueryWordWeighsAsOneWord(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 30 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("ecommerce-api note %d about module%d", i, i)})
	}
	loud := put(t, e, &cairn.Memory{Content: "ecommerce-api: the ecommerce api (EcommerceApi) ecommerceapi overview"})
	answer := put(t, e, &cairn.Memory{Content: "checkout requests time out after 30 s under load"})
	hits := searchHits(t, e, cairn.Query{Text: "ecommerce-api checkout timeout"})
	if len(hits) == 0 || hits[0].Memory.ID != answer.ID {
		t.Fatalf("search = %v, want %s (the checkout memory) before %s", hitIDs(hits), answer.ID, loud.ID)
	}
	w := engine.QueryWeights("AuthService.Refresh refresh user_id user_id")
	sum := map[string]float64{}
	for _, q := range w {
		sum[q.Term] = q.Weight
	}
	if sum["authservice.refresh"] != 0.5 || sum["user_id"] != 0.5 || sum["refresh"] != 1 {
		t.Errorf("weights %v: want the wholes at 0.5, a plain word at 1 (and its part weight never above it)", w)
	}
	if got := sum["auth"] + sum["servic"] + sum["authservice.refresh"]; got < 0.8333 || got > 0.8334 {
		t.Errorf("weights %v: a compound's parts share the other half", w)
	}
}

// Memories of one session are a story: the memory that follows a strong
// match in its session (the fix after a failure) is found through it,
// even without a word of the query; one of another session is not.
func TestStrongMatchLendsToItsSessionNeighbours(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	put(t, e, &cairn.Memory{Content: "deploy checklist for the staging cluster", SessionID: "s0"})
	failure := put(t, e, &cairn.Memory{Type: "issue", Content: "TestParseConfig panics with a nil map on an empty file", SessionID: "s1"})
	fix := put(t, e, &cairn.Memory{Type: "fix", Content: "return early when the file has no bytes, before decoding", SessionID: "s1"})
	other := put(t, e, &cairn.Memory{Content: "the linter wants doc comments on exported names", SessionID: "s2"})
	hits := searchHits(t, e, cairn.Query{Text: "TestParseConfig panics"})
	ids := hitIDs(hits)
	if len(ids) < 2 || ids[0] != failure.ID || ids[1] != fix.ID {
		t.Fatalf("search = %v, want the failure %s then its fix %s", ids, failure.ID, fix.ID)
	}
	if h := hits[1]; h.Explain.Lexical != 0 || h.Explain.Lent <= 0 || h.Explain.LentBy != failure.ID {
		t.Errorf("the fix's score: lexical %v, lent %v by %q; want only a share lent by the failure", h.Explain.Lexical, h.Explain.Lent, h.Explain.LentBy)
	}
	if hits[1].Score >= hits[0].Score {
		t.Errorf("a lent score %v must stay below the match's own %v", hits[1].Score, hits[0].Score)
	}
	if slices.Contains(ids, other.ID) {
		t.Errorf("a memory of another session got a share: %v", ids)
	}
	// The same holds for a task.
	task := put(t, e, &cairn.Memory{Type: "failure", Content: "migration 12 deadlocks against the vacuum job", TaskID: "t9"})
	after := put(t, e, &cairn.Memory{Type: "learning", Content: "run it in a maintenance window", TaskID: "t9"})
	if ids := hitIDs(searchHits(t, e, cairn.Query{Text: "migration deadlocks"})); len(ids) < 2 || ids[0] != task.ID || ids[1] != after.ID {
		t.Errorf("search = %v, want %s then its task neighbour %s", ids, task.ID, after.ID)
	}
}

// A memory that holds every word of the query outranks one that holds
// one rare word, even repeated.
func TestCoverageFavoursMemoriesWithMoreOfTheQuery(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		c := fmt.Sprintf("release note %d", i)
		if i%2 == 0 {
			c += " about the session store"
		}
		if i%3 == 0 {
			c += " and its eviction"
		}
		put(t, e, &cairn.Memory{Content: c})
	}
	rare := put(t, e, &cairn.Memory{Content: "memcached memcached memcached"})
	both := put(t, e, &cairn.Memory{Content: "memcached session eviction runs at logout on each device a user has signed in from"})
	hits := searchHits(t, e, cairn.Query{Text: "memcached session eviction"})
	if len(hits) < 2 || hits[0].Memory.ID != both.ID {
		t.Fatalf("search = %v, want %s (all the words) before %s (one rare word)", hitIDs(hits), both.ID, rare.ID)
	}
	if hits[0].Explain.Coverage != 1 {
		t.Errorf("coverage of a memory with every word = %v, want 1", hits[0].Explain.Coverage)
	}
}

// Irregular forms and British spellings find their base form and the
// American spelling, both ways.
func TestWordFormsMatchAcrossForms(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	put(t, e, &cairn.Memory{Content: "the payments team owns the retry banner"})
	met := put(t, e, &cairn.Memory{Content: "we met them about the colour"})
	kids := put(t, e, &cairn.Memory{Content: "child processes are organized by the supervisor"})
	wrote := put(t, e, &cairn.Memory{Content: "she wrote the travelled-distance check"})
	for q, want := range map[string]string{
		"meeting":      met.ID,
		"meet":         met.ID,
		"color":        met.ID,
		"children":     kids.ID,
		"organisation": kids.ID,
		"organised":    kids.ID,
		"writing":      wrote.ID,
		"traveled":     wrote.ID,
	} {
		if ids := hitIDs(searchHits(t, e, cairn.Query{Text: q})); len(ids) == 0 || ids[0] != want {
			t.Errorf("search %q = %v, want %s first", q, ids, want)
		}
	}
}

// A query that names a date or a period favours what was written then.
func TestDatesInTheQueryFavourMemoriesWrittenThen(t *testing.T) {
	t.Parallel()
	now := time.Date(2023, 10, 22, 9, 0, 0, 0, time.UTC)
	e := rankingEngine(t, now)
	may := put(t, e, &cairn.Memory{Content: "rotated the signing key (staging)", CreatedAt: time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)})
	aug := put(t, e, &cairn.Memory{Content: "rotated the signing key (production)", CreatedAt: time.Date(2023, 8, 2, 10, 0, 0, 0, time.UTC)})
	yday := put(t, e, &cairn.Memory{Content: "rotated the signing key (preview)", CreatedAt: now.Add(-24 * time.Hour)})
	for q, want := range map[string]string{
		"when was the signing key rotated in May 2023":   may.ID,
		"signing key rotated on 8 May 2023":              may.ID,
		"signing key rotated on August 2, 2023":          aug.ID,
		"signing key rotated in August":                  aug.ID,
		"the signing key we rotated yesterday":           yday.ID,
		"what did we rotate yesterday? the signing key?": yday.ID,
	} {
		hits := searchHits(t, e, cairn.Query{Text: q, Now: now})
		if len(hits) == 0 || hits[0].Memory.ID != want {
			t.Errorf("search %q = %v, want %s first", q, hitIDs(hits), want)
			continue
		}
		if hits[0].Explain.DateFactor <= 1 {
			t.Errorf("search %q: date factor %v, want above 1", q, hits[0].Explain.DateFactor)
		}
	}
	for _, h := range searchHits(t, e, cairn.Query{Text: "signing key rotated", Now: now}) {
		if h.Explain.DateFactor != 1 {
			t.Errorf("a query without a date gave %s a date factor %v", h.Memory.ID, h.Explain.DateFactor)
		}
	}
}

// The words of a date the query names are held, for Strength, by a memory
// written in that period: "what did we rotate on 8 May 2023" is matched in
// full by the memory of 8 May that says what was rotated, and a memory of
// another day holding the same words matches less of the query.
func TestAMemoryWrittenOnTheDateTheQueryNamesHoldsTheDate(t *testing.T) {
	t.Parallel()
	now := time.Date(2023, 10, 22, 9, 0, 0, 0, time.UTC)
	e := rankingEngine(t, now)
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("filler memory %d about the release", i), CreatedAt: now.Add(-time.Duration(i+1) * time.Hour)})
	}
	then := put(t, e, &cairn.Memory{Content: "rotated the signing key", CreatedAt: time.Date(2023, 5, 8, 10, 0, 0, 0, time.UTC)})
	other := put(t, e, &cairn.Memory{Content: "rotated the signing key again", CreatedAt: time.Date(2023, 8, 2, 10, 0, 0, 0, time.UTC)})
	strength := map[string]float64{}
	for _, h := range searchHits(t, e, cairn.Query{Text: "signing key rotated on 8 May 2023", Now: now}) {
		strength[h.Memory.ID] = h.Strength
	}
	if strength[then.ID] != 1 {
		t.Errorf("the memory written on the named day has strength %v, want 1 (its words and its date)", strength[then.ID])
	}
	if s := strength[other.ID]; s <= 0 || s >= 0.9 {
		t.Errorf("the memory of another day has strength %v, want its words' share only", s)
	}
	for _, h := range searchHits(t, e, cairn.Query{Text: "signing key rotated", Now: now}) {
		if h.Strength != 1 {
			t.Errorf("without a date in the query %s has strength %v, want 1", h.Memory.ID, h.Strength)
		}
	}
}

// Salience breaks near-ties but never lifts a clearly weaker match: a
// pinned, trusted, often used memory that holds one query word stays
// below a plain one that holds them all.
func TestSalienceNeverLiftsAClearlyWeakerMatch(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("filler memory %d about the release", i)})
	}
	strong := put(t, e, &cairn.Memory{Type: "note", Confidence: 0.2, Content: "flaky integration tests retry twice on CI",
		CreatedAt: day0.Add(-400 * 24 * time.Hour)})
	salient := put(t, e, &cairn.Memory{Type: "decision", Confidence: 1, Pinned: true, Content: "flaky integration tests are quarantined"})
	if err := e.RecordUse(t.Context(), slices.Repeat([]string{salient.ID}, 1), "s1"); err != nil {
		t.Fatal(err)
	}
	hits := searchHits(t, e, cairn.Query{Text: "flaky integration tests retry"})
	if len(hits) >= 2 && hits[1].Relevance > 0.83 {
		t.Fatalf("the fixture needs the salient memory clearly weaker: relevance %v", hits[1].Relevance)
	}
	if len(hits) < 2 || hits[0].Memory.ID != strong.ID {
		t.Fatalf("search = %v, want %s before the salient %s", hitIDs(hits), strong.ID, salient.ID)
	}
}

// Feedback is off by default, and when on it lends words only: no
// numbers, times or identifiers.
func TestFeedbackLendsWordsOnly(t *testing.T) {
	t.Parallel()
	s := newStore(t)
	on := engine.New(s, &engine.Options{Now: func() time.Time { return day0 }, Feedback: engine.DefaultFeedback()})
	for i := range 6 {
		put(t, on, &cairn.Memory{Content: fmt.Sprintf("deploy window opens 13:56 v2.3.%d", i)})
	}
	noise := put(t, on, &cairn.Memory{Content: "at 13:56 the cron job v2.3.1 ran"})
	for _, h := range searchHits(t, on, cairn.Query{Text: "deploy window"}) {
		if h.Memory.ID == noise.ID {
			t.Errorf("feedback lent a time or version: %q was found by %q", noise.Content, "deploy window")
		}
	}
}

// longReply is a reply of about 300 words that restates a question's
// words (payment client, version, pinned, retries) many times over
// without stating the version.
func longReply() string {
	var b strings.Builder
	b.WriteString("Good question about the payment client and which version is pinned. ")
	for i := range 12 {
		fmt.Fprintf(&b, "Step %d: check how the payment client handles retries, whether the pinned version matters for the gateway, "+
			"what the changelog says about idempotency keys, and how the build resolves each dependency graph node %d. ", i, i)
	}
	b.WriteString("Once you know the version you pinned, tell me and we can go on.")
	return b.String()
}

// A short statement of a fact outranks a long reply that repeats the
// question's words: a memory's length is measured against a fixed length
// of a few sentences, not against the average, which the long memories
// set, so that a long memory is scored by how densely it holds the
// query's words, not by holding each of them somewhere.
func TestShortStatementOutranksALongReplyThatRepeatsItsWords(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("release note %d: the docs site moved to the new theme", i)})
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("a long reply %d: ", i) + strings.Repeat("the build cache, the docs theme and the lint rules were discussed at length. ", 20)})
	}
	reply := put(t, e, &cairn.Memory{Content: longReply()})
	fact := put(t, e, &cairn.Memory{Content: "We pinned the payment client to version 4.2 because 4.3 retries twice."})
	hits := searchHits(t, e, cairn.Query{Text: "which version of the payment client is pinned?"})
	if len(hits) < 2 || hits[0].Memory.ID != fact.ID {
		t.Fatalf("search = %v, want the statement %s before the long reply %s", hitIDs(hits), fact.ID, reply.ID)
	}
}

// A long memory lent relevance by a neighbour never outranks the match
// that lends it: a long reply that repeats most of a statement's words,
// right after it in the session, stays below the statement. A short one
// may: the answer right after a question, which holds fewer of its words.
func TestLentRelevanceNeverLiftsALongNeighbourAboveItsLender(t *testing.T) {
	t.Parallel()
	e := rankingEngine(t, day0)
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("release note %d about the docs theme", i), SessionID: "s0"})
	}
	statement := put(t, e, &cairn.Memory{Content: "the staging database password rotates every monday", SessionID: "s1"})
	var b strings.Builder
	b.WriteString("Noted: the staging database password rotates weekly. ")
	for i := range 10 {
		fmt.Fprintf(&b, "Point %d: keep the staging database credentials in the vault and check the rotation job's log. ", i)
	}
	reply := put(t, e, &cairn.Memory{Content: b.String(), SessionID: "s1"})
	hits := searchHits(t, e, cairn.Query{Text: "when does the staging database password rotate"})
	if len(hits) < 2 || hits[0].Memory.ID != statement.ID || hits[1].Memory.ID != reply.ID {
		t.Fatalf("search = %v, want the statement %s, then the long reply %s", hitIDs(hits), statement.ID, reply.ID)
	}
	if h := hits[1].Explain; h.LentBy != statement.ID || h.Match+h.Lent > 0.8*hits[0].Explain.Match+1e-9 {
		t.Errorf("the reply: match %v + lent %v by %q, want at most 0.8 of the statement's %v", h.Match, h.Lent, h.LentBy, hits[0].Explain.Match)
	}

	question := put(t, e, &cairn.Memory{Content: "Priya: was the nightly backup checked?", SessionID: "s2"})
	answer := put(t, e, &cairn.Memory{Content: "Tomas: yes, the backup checksum matched at 03:10", SessionID: "s2"})
	hits = searchHits(t, e, cairn.Query{Text: "nightly backup checksum"})
	if len(hits) < 2 || hits[0].Memory.ID != answer.ID || hits[1].Memory.ID != question.ID {
		t.Fatalf("search = %v, want the short answer %s, lifted by the question %s, first", hitIDs(hits), answer.ID, question.ID)
	}
	if h := hits[0].Explain; h.LentBy != question.ID || h.Match >= hits[1].Explain.Match {
		t.Errorf("the answer: match %v (+ lent %v by %q) against the question's %v: want it lifted by the question's lending", h.Match, h.Lent, h.LentBy, hits[1].Explain.Match)
	}
}
