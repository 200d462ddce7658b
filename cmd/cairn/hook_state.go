package main

import (
	"time"

	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/sessionstate"
)

// statePath is the session state file of g's database (package
// sessionstate): beside the SQLite file, or beside the data folder's
// stand-in for a PostgreSQL database.
func statePath(g *globals) string { return g.path() + ".state.json" }

// keepKeywords saves the keyword overrides the prompt matched (seed 004:
// "full history" → a dynamic count of 10) for the next session's start.
// A state that cannot be written is logged, not an error of the prompt.
func (h *hookRun) keepKeywords(c *config.Config, prompt string) {
	phrases := c.MatchKeywords(prompt) // no copy of the configuration on every prompt
	if len(phrases) == 0 {
		return
	}
	if err := sessionstate.Keep(statePath(h.g), h.g.project, sessionstate.Override{Keywords: phrases, Session: h.p.SessionID, At: time.Now().UTC()}); err != nil {
		h.log(err)
	}
}

// takeKept returns the keyword phrases a prompt of an earlier session
// kept, for the block to apply (recall.Request.Keywords), and forgets
// them; nil when none were kept.
func (h *hookRun) takeKept() []string {
	o, ok, err := sessionstate.Take(statePath(h.g), h.g.project)
	if err != nil {
		h.log(err)
	}
	if !ok || len(o.Keywords) == 0 {
		return nil
	}
	return o.Keywords
}
