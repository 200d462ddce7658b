package engine

import (
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Seed 004's tag namespaces carry meaning:
//
//	scope:global   the memory is global: every project sees it
//	scope:session  the memory is ephemeral: it expires SessionScopeTTL after
//	               it was written (unless it has an expiry of its own)
//	agent:<id>     written by that agent (Memory.Agent, when not given)
//	session:<id>   written in that session (Memory.SessionID, when not
//	               given): a context for that session leaves it out
//	mode:<name>    about that mode: it matches a context built in that mode
//	               as a tag matches (the mode in force, see package recall)
//	project:<name> informative: the project is the memory's own
//
// The tags stay on the memory; the fields they set are what search,
// listing (--agent, --session) and context read.
const (
	TagScopeGlobal  = "scope:global"
	TagScopeSession = "scope:session"
)

// SessionScopeTTL is how long a memory tagged scope:session lives.
const SessionScopeTTL = 24 * time.Hour

// applyNamespaces sets the fields m's namespaced tags name.
func applyNamespaces(m *cairn.Memory) {
	for _, t := range m.Tags {
		ns, v, ok := strings.Cut(t, ":")
		if !ok || v == "" {
			continue
		}
		switch ns {
		case "scope":
			if v == "global" {
				m.Scope = cairn.ScopeGlobal
			}
		case "agent":
			if m.Agent == "" {
				m.Agent = v
			}
		case "session":
			if m.SessionID == "" {
				m.SessionID = v
			}
		}
	}
}
