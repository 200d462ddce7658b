package main

import (
	"fmt"
	"regexp"
	"slices"
	"testing"
	"time"
)

// Two hook calls of one session 10 ms apart (a prompt, then the edit it
// asked for; one command run twice in parallel) show a memory once, through the server, whose uses wait to
// be written in batches, as without one; another session is shown it.
func TestHookCallsMomentsApartDoNotRepeatAMemory(t *testing.T) {
	t.Parallel()
	c, _ := startServe(t)
	pit := c.add("--type", "pitfall", "--files", "cart/*.go", "The cart total rounds per line, not per order: cart/total.go sums rounded lines.")
	ids := regexp.MustCompile(`mem-[0-9a-z]+`)
	shown := func(r result) []string {
		t.Helper()
		if r.code != 0 {
			t.Fatalf("hook: %v", r)
		}
		return ids.FindAllString(r.stdout, -1)
	}
	prompt := func(session string) string {
		return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"UserPromptSubmit","cwd":%q,"prompt":"fix the cart total rounding in cart/total.go"}`, session, c.dir)
	}
	edit := func(session string) string {
		return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","cwd":%q,"tool_name":"Write","tool_input":{"file_path":"cart/total.go","content":"package cart\n"}}`, session, c.dir)
	}
	bash := func(session string) string {
		return fmt.Sprintf(`{"session_id":%q,"hook_event_name":"PreToolUse","cwd":%q,"tool_name":"Bash","tool_input":{"command":"go test ./cart/..."}}`, session, c.dir)
	}
	tz := c.add("--type", "pitfall", "go test ./cart/... fails unless TZ=UTC is set: the totals are dated in local time.")
	for i, run := range []func(string, ...string) result{c.viaServer, c.local} {
		s := fmt.Sprint("session-", i)
		// Parallel tool calls: the same command twice, the lookup of
		// what is known about its failures.
		if got := shown(run(bash(s), "hook", "claude", "pre-tool-use")); !slices.Contains(got, tz) {
			t.Fatalf("run %d: the command's lookup %v lacks %s", i, got, tz)
		}
		time.Sleep(10 * time.Millisecond)
		if got := shown(run(bash(s), "hook", "claude", "pre-tool-use")); slices.Contains(got, tz) {
			t.Errorf("run %d: the same command 10 ms later is told %s again", i, tz)
		}
		if got := shown(run(prompt(s), "hook", "claude", "user-prompt-submit")); !slices.Contains(got, pit) {
			t.Fatalf("run %d: the prompt's block %v lacks %s", i, got, pit)
		}
		time.Sleep(10 * time.Millisecond)
		if got := shown(run(edit(s), "hook", "claude", "pre-tool-use")); slices.Contains(got, pit) {
			t.Errorf("run %d: the edit's block 10 ms later shows %s again", i, pit)
		}
		if got := shown(run(edit(s+"-other"), "hook", "claude", "pre-tool-use")); !slices.Contains(got, pit) {
			t.Errorf("run %d: another session's edit block %v lacks %s", i, got, pit)
		}
	}
}
