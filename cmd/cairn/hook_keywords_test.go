package main

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
)

// The prompt hook takes a keyword phrase ("quick task") out of the
// prompt before it looks for memories, through the server and without
// one: the prompt with it shows the memories the prompt without it
// shows, not one that merely holds the phrase's words.
func TestPromptHookDoesNotSearchForAKeywordPhrase(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	cart := c.add("--type", "pitfall", "The cart total rounds per line, not per order.")
	c.add("--type", "pattern", "Quick task runner: the task queue runs a quick task before a long one.")
	ids := regexp.MustCompile(`mem-[0-9a-z]+`)
	shown := func(r result) []string {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("hook: %v", r)
		}
		got := ids.FindAllString(r.stdout, -1)
		slices.Sort(got)
		return slices.Compact(got)
	}
	payload := func(session, prompt string) string {
		return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","cwd":%q,"prompt":%q}`, session, c.dir, prompt)
	}
	for i, run := range []func(string, ...string) result{c.viaServer, c.local} {
		plain := shown(run(payload(fmt.Sprint("plain-", i), "fix cart rounding"), "hook", "claude", "user-prompt-submit"))
		if !slices.Equal(plain, []string{cart}) {
			t.Fatalf("run %d: the prompt without a phrase shows %v, want [%s]", i, plain, cart)
		}
		quick := shown(run(payload(fmt.Sprint("quick-", i), "(quick task) fix cart rounding"), "hook", "claude", "user-prompt-submit"))
		if !slices.Equal(quick, plain) {
			t.Errorf("run %d: the prompt with (quick task) shows %v, want %v", i, quick, plain)
		}
	}
}
