package recall_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/recall"
)

// relevantOnly is a request for project p's prompt block with the
// relevant tier alone.
func relevantOnly(prompt string) cairn.ContextRequest {
	return cairn.ContextRequest{Project: "p", Prompt: prompt}
}

// selectRelevant is what the pipeline chose for req with the relevant
// tier alone (and floor as the configuration's relevance floor, when
// positive), and the relevant memories' ids.
func selectRelevant(t *testing.T, e *engine.Engine, req cairn.ContextRequest, floor ...float64) (*recall.Selection, []string) {
	t.Helper()
	c := noLastingTiers()
	if len(floor) > 0 {
		c.Context.Relevant.Floor = floor[0]
	}
	sel := selection(t, e, c, req)
	return sel, relevantIDs(sel)
}

// The words of a prompt that say how it is put, not what about
// (greetings, thanks, the glue of a conversation with an agent, phrases
// that steer a model), do not push a memory that the rest of the prompt
// matches below the floor, whether the project has seen them or not.
func TestFillerWordsDoNotPushARelevantMemoryBelowTheFloor(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 30 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	put(t, e, &cairn.Memory{Content: "thanks for the review, lets continue with the next task tomorrow"})
	key := put(t, e, &cairn.Memory{Type: "pitfall", Content: "the staging signing key rotates on mondays; deploys fail with an expired key"})
	for _, prompt := range []string{
		"why did the staging deploy fail with an expired signing key",
		"hey, thanks! quick task (ultrathink): why did the staging deploy fail with an expired signing key? please go ahead",
		"ok lets continue: why did the staging deploy fail with an expired signing key, think hard",
		"hey thanks! quick task (ultrathink, think hard): staging key expired? please go ahead, lets continue",
	} {
		if _, ids := selectRelevant(t, e, relevantOnly(prompt)); len(ids) == 0 || ids[0] != key.ID {
			t.Errorf("%q: relevant %v, want %s first", prompt, ids, key.ID)
		}
	}
	// A prompt of filler alone matches nothing, even a memory that holds
	// its words.
	if _, ids := selectRelevant(t, e, relevantOnly("thanks! lets continue with the next task")); len(ids) != 0 {
		t.Errorf("a prompt of filler words got %v", ids)
	}
}

// Words that most memories of a project hold (its name, a folder that
// most file references sit in) do not make a block fire: a memory holds
// such a word at a fraction of its weight.
func TestWordsMostMemoriesShareDoNotMakeABlockFire(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 30 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("ledgerly: invoicer/models_%d.py keeps field %d nullable", i, i)})
	}
	for i := range 10 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("the nightly backup %d runs at two", i)})
	}
	rounding := put(t, e, &cairn.Memory{Type: "pitfall", Content: "ledgerly rounds invoice totals half-even in invoicer/totals.py"})
	for _, prompt := range []string{"ledgerly", "what about invoicer", "ledgerly invoicer"} {
		if _, ids := selectRelevant(t, e, relevantOnly(prompt)); len(ids) != 0 {
			t.Errorf("%q, words most memories hold: relevant %v, want none", prompt, ids)
		}
	}
	// The same words beside the ones that say what the prompt is about.
	if _, ids := selectRelevant(t, e, relevantOnly("how does ledgerly round invoice totals")); len(ids) == 0 || ids[0] != rounding.ID {
		t.Errorf("relevant %v, want %s first", ids, rounding.ID)
	}
	// Editing a file of the folder most memories are about ("invoice"
	// stems like "invoicer"): the memory about that file, not the folder.
	about := put(t, e, &cairn.Memory{Type: "pitfall", Content: "keep the tax line last when rendering", FileRefs: []string{"invoicer/invoice.py"}})
	req := relevantOnly("")
	req.Files = []string{"invoicer/invoice.py"}
	if _, ids := selectRelevant(t, e, req); len(ids) != 1 || ids[0] != about.ID {
		t.Errorf("editing invoicer/invoice.py: relevant %v, want only %s, the memory about that file", ids, about.ID)
	}
}

// A title that several memories share ("Session Catchup", written by a
// command for each of its runs) is boilerplate: it makes no block fire on
// its words, and the memories that bear it take one place in a block.
func TestBoilerplateTitlesNeitherFireNorFillABlock(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	topics := []string{"the export retries", "the webhook signatures", "the search index", "the docs theme", "the release script", "the login page"}
	for i, topic := range topics {
		put(t, e, &cairn.Memory{Type: "session", Title: "Session Catchup", Content: fmt.Sprintf("Caught up on %s; next: the open review %d", topic, i)})
	}
	for _, prompt := range []string{"/catchup", "session catchup"} {
		if _, ids := selectRelevant(t, e, relevantOnly(prompt)); len(ids) != 0 {
			t.Errorf("%q matches only a shared title: relevant %v, want none", prompt, ids)
		}
	}
	// A prompt their contents match: one of them, not six.
	sel, ids := selectRelevant(t, e, relevantOnly("session catchup: which review is open next"))
	n := 0
	for _, it := range sel.Items {
		if it.Memory.Title == "Session Catchup" {
			n++
		}
	}
	if n != 1 {
		t.Errorf("relevant %v: %d memories titled Session Catchup, want 1", ids, n)
	}
	alike := 0
	for _, lo := range sel.LeftOut {
		if strings.HasPrefix(lo.Reason, "like ") {
			alike++
		}
	}
	if alike == 0 {
		t.Errorf("left out %+v: want the others named as like the one in", sel.LeftOut)
	}
}

// Memories whose contents are nearly the same take one place in a block:
// the best of them.
func TestNearlyIdenticalMemoriesTakeOnePlaceInABlock(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	var same []string
	for i, who := range []string{"ana", "bo", "cy", "di"} {
		m := put(t, e, &cairn.Memory{Type: "session", Content: fmt.Sprintf("Summary by %s: migrated the payment webhooks to the v2 signature check, tests green, run %d", who, i)})
		same = append(same, m.ID)
	}
	other := put(t, e, &cairn.Memory{Type: "pitfall", Content: "payment webhooks fail the v2 signature check when the body is re-encoded"})
	_, ids := selectRelevant(t, e, relevantOnly("payment webhooks v2 signature check"))
	n := 0
	for _, id := range ids {
		if slices.Contains(same, id) {
			n++
		}
	}
	if n != 1 || !slices.Contains(ids, other.ID) {
		t.Errorf("relevant %v: %d of the near-identical summaries %v, want 1, and %s", ids, n, same, other.ID)
	}
}

// A memory found only through a session neighbour (no word of the prompt
// of its own) is put into a block only when that neighbour clears the
// floor on its own words.
func TestLentRelevanceAloneDoesNotInject(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	strong := put(t, e, &cairn.Memory{Content: "the flaky auth test retries twice under the tight budget", SessionID: "s1"})
	strongNext := put(t, e, &cairn.Memory{Content: "fixed by giving each subtest its own fake clock", SessionID: "s1"})
	weak := put(t, e, &cairn.Memory{Content: "the flaky auth test retries twice under budget", SessionID: "s2"})
	weakNext := put(t, e, &cairn.Memory{Content: "moved the fixtures into testdata", SessionID: "s2"})
	req := relevantOnly("flaky auth test retries tight budget")
	const floor = 0.9 // the strong match clears it, the weak one does not
	hits, err := e.Search(t.Context(), cairn.Query{Project: "p", Text: req.Prompt, Limit: 12, Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	lent := map[string]string{}
	for _, h := range hits {
		if x := h.Explain; x.Match == 0 && x.Lent > 0 {
			lent[h.Memory.ID] = x.LentBy
		}
	}
	if lent[strongNext.ID] != strong.ID || lent[weakNext.ID] != weak.ID {
		t.Fatalf("the fixture wants both neighbours found only through their lender: %v", lent)
	}
	_, ids := selectRelevant(t, e, req, floor)
	if !slices.Contains(ids, strongNext.ID) {
		t.Errorf("relevant %v: want %s, lent by a match that clears the floor", ids, strongNext.ID)
	}
	if slices.Contains(ids, weakNext.ID) {
		t.Errorf("relevant %v: %s was lent by a match below the floor, and holds no word of the prompt", ids, weakNext.ID)
	}
}

// A long text that holds a prompt's words once each among hundreds of
// others (a session log, a long reply) does not hold the prompt: it makes
// no block fire, where a short memory that states them does.
func TestALongTextHoldingAPromptsWordsSparselyDoesNotFire(t *testing.T) {
	t.Parallel()
	e := newEngine(t, func() time.Time { return day0 })
	for i := range 20 {
		put(t, e, &cairn.Memory{Content: fmt.Sprintf("note %d on the billing export job and its retries", i)})
	}
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "Step %d of the long session went over the docs theme, the lint rules and build cache number %d. ", i, i)
		switch i {
		case 5:
			b.WriteString("Someone asked whether to rotate anything. ")
		case 15:
			b.WriteString("A webhook came up. ")
		case 25:
			b.WriteString("The secret of good docs is examples. ")
		case 35:
			b.WriteString("We meet monthly. ")
		}
	}
	log := put(t, e, &cairn.Memory{Type: "session", Content: b.String()})
	prompt := "rotate the webhook secret monthly"
	if sel, ids := selectRelevant(t, e, relevantOnly(prompt)); len(ids) != 0 {
		t.Errorf("relevant %v (left out %+v): the long log %s holds each word once among hundreds, want none", ids, sel.LeftOut, log.ID)
	}
	short := put(t, e, &cairn.Memory{Type: "convention", Content: "We rotate the webhook secret monthly, on the first Monday."})
	if _, ids := selectRelevant(t, e, relevantOnly(prompt)); len(ids) == 0 || ids[0] != short.ID {
		t.Errorf("relevant %v, want %s first", ids, short.ID)
	}
}
