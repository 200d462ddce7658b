package transcript

import (
	"path"
	"regexp"
	"strings"
	"sync"
	"unicode"
)

// What a user line of a Claude Code transcript holds besides what the user
// asked: Claude Code's own text (a slash command's echo and its expansion,
// a local command's output and the caveat before it, a compaction's
// summary, an interruption, a sub-agent's prompt, the "Warmup" a
// sub-agent starts with), text that IDEs and other tools' hooks add, and
// reminders. None of it says what the user wanted.

// localCommands are Claude Code's built-in commands that act on the
// session, not on the project: their arguments are no request.
var localCommands = map[string]bool{
	"add-dir": true, "agents": true, "bashes": true, "bug": true, "clear": true, "compact": true, "config": true,
	"context": true, "cost": true, "doctor": true, "exit": true, "export": true, "feedback": true, "help": true,
	"hooks": true, "ide": true, "install-github-app": true, "login": true, "logout": true, "mcp": true,
	"memory": true, "migrate-installer": true, "model": true, "output-style": true, "permissions": true,
	"plugin": true, "plugins": true, "privacy-settings": true, "quit": true, "release-notes": true, "resume": true,
	"rewind": true, "sandbox": true, "status": true, "statusline": true, "terminal-setup": true, "theme": true,
	"todos": true, "upgrade": true, "usage": true, "vim": true, "fast": true, "effort": true, "keybindings": true,
	"copy": true, "files": true, "extra-usage": true, "stats": true, "tasks": true, "skills": true, "continue": true,
}

var (
	commandNameRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<command-name>\s*/?([^<\s]+)\s*</command-name>`) })
	commandArgsRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?s)<command-args>(.*?)</command-args>`) })
	// taggedRE are the blocks that IDEs, hooks and Claude Code put into a
	// user's message around what the user typed.
	taggedRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?s)<(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-prompt-submit-hook|user_instructions|environment_context|command-message|local-command-caveat)>.*?</(system-reminder|ide_opened_file|ide_selection|ide_diagnostics|user-prompt-submit-hook|user_instructions|environment_context|command-message|local-command-caveat)>`)
	})
	// continuationRE starts the summary a compaction puts at the head of
	// the conversation that goes on.
	continuationRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^this session is being continued from a previous conversation`)
	})
	// shellPromptRE is a terminal's prompt pasted with a command or its
	// output: zsh's and bash's "user@host dir %" or "user@host:~/dir$" at
	// the start of a line, and macOS bash's "host:dir user$" anywhere.
	// It names the user and the machine and says nothing of the request.
	shellPromptRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?m)(^[ \t]*(\([\w.-]+\)[ \t]*)?[\w.-]+@[\w.-]+(:[^\s%$#]*|[ \t]+[^\n%$#@]*?)?[ \t]*[%$#][ \t]+|\b[\w-]+:[^\s$]+( [^\s$]+)*? [\w.-]+\$[ \t]+)`)
	})
	// correctionRE starts a user's message that corrects the agent.
	correctionRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(no\b[,.!]?|nope\b|don'?t\b|do not\b|stop\b|wrong\b|that'?s (not|wrong)|that is (not|wrong)|this is (not|wrong)|why (did|are|is|would|do) you|you (didn'?t|did not|haven'?t|have not|broke|forgot|missed|should(n'?t)?|are not|aren'?t)|not what i|i (said|told you|asked you|meant)|revert\b|undo\b|instead\b)`)
	})
)

// request is what one user line asked.
type request struct {
	text string // what the user typed ("" for none)
	// slash is a slash command without arguments that is no local
	// command ("/init"), kept for a session that asks nothing else.
	slash string
	// carried is what a compaction's summary says the user asked before
	// ("Primary Request and Intent"): the request of a conversation that
	// goes on from an earlier one.
	carried     string
	interrupted bool // "[Request interrupted by user…]"
}

// userRequest reads what a user line (not a tool result, not a sub-agent's)
// asked.
func userRequest(e Entry) request {
	if e.IsMeta || e.IsSidechain {
		return request{}
	}
	t := e.Text
	for _, b := range e.Blocks {
		if b.Type == "text" {
			if t != "" {
				t += "\n"
			}
			t += b.Text
		}
	}
	t = strings.TrimSpace(t)
	if e.IsCompactSummary || continuationRE().MatchString(t) {
		return request{carried: carriedRequest(t)}
	}
	if m := commandNameRE().FindStringSubmatch(t); m != nil {
		name := strings.TrimPrefix(m[1], "/")
		args := ""
		if a := commandArgsRE().FindStringSubmatch(t); a != nil {
			args = strings.TrimSpace(a[1])
		}
		switch {
		case localCommands[name]:
			return request{}
		case args == "":
			return request{slash: "/" + name}
		}
		return request{text: "/" + name + " " + args + fileTopics(args)}
	}
	t = strings.TrimSpace(taggedRE().ReplaceAllString(t, ""))
	t = strings.TrimSpace(shellPromptRE().ReplaceAllString(t, ""))
	switch {
	case t == "":
		return request{}
	case strings.HasPrefix(t, "[Request interrupted"):
		return request{interrupted: true}
	case strings.HasPrefix(t, "<local-command-") || strings.HasPrefix(t, "<bash-") || strings.HasPrefix(t, "<command-"),
		strings.HasPrefix(t, "Caveat: The messages below were generated by the user while running local commands"),
		t == "Warmup":
		return request{}
	}
	return request{text: t}
}

// carriedRequest is the "Primary Request and Intent" of a compaction's
// summary: its list items joined, or its first paragraph.
func carriedRequest(summary string) string {
	lines := strings.Split(summary, "\n")
	in := false
	var items, para []string
	for _, l := range lines {
		t := strings.TrimSpace(l)
		low := strings.ToLower(t)
		if !in {
			if strings.Contains(low, "primary request") {
				in = true
				if _, rest, ok := strings.Cut(t, ":"); ok && strings.TrimSpace(rest) != "" {
					para = append(para, strings.TrimSpace(rest))
				}
			}
			continue
		}
		if sectionHeadRE().MatchString(t) {
			break
		}
		switch {
		case t == "":
			if len(items) > 0 || len(para) > 0 {
				if len(items) > 0 {
					continue
				}
			}
		case strings.HasPrefix(t, "- ") || strings.HasPrefix(t, "* "):
			items = append(items, strings.TrimSpace(t[2:]))
		default:
			para = append(para, t)
		}
	}
	if len(items) > 0 {
		return strings.Join(items, "; ")
	}
	return strings.Join(para, " ")
}

// sectionHeadRE starts the next numbered section of a compaction summary.
var sectionHeadRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(#+\s*)?\d+\.\s+\S`) })

// fileTopics turns the files a slash command's arguments name into the
// words their names say: "/implement specs/fix-cache-eviction.md" is about
// "fix cache eviction". It is "" when the arguments name no file.
func fileTopics(args string) string {
	var topics []string
	for _, w := range strings.Fields(args) {
		if !strings.ContainsAny(w, "/\\") && !strings.Contains(w, ".") {
			continue
		}
		base := strings.TrimSuffix(path.Base(strings.ReplaceAll(w, `\`, "/")), path.Ext(w))
		words := strings.FieldsFunc(base, func(r rune) bool { return r == '-' || r == '_' || r == '.' || unicode.IsSpace(r) })
		if len(words) < 2 {
			continue
		}
		topics = append(topics, strings.Join(words, " "))
	}
	if len(topics) == 0 {
		return ""
	}
	return " (" + strings.Join(topics, "; ") + ")"
}

// stopWords are left out when counting the words that say what a request
// is about.
var stopWords = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`a an and are as at be been but by can could did do does doing done for from get got had has
have he her here him his how i if in into is it its just let lets like me more most my no not now of on once only or our out
over please same see she should so some such than that the their them then there these they this those through to too up
us use very was we were what when where which while who why will with would you your all also any each few other own both again
further off ok okay yes yeah want need make sure go going look one two new way thing things still well really think know
continue proceed go ahead do it`) {
		m[w] = true
	}
	return m
})

// contentWords counts the distinct words of three or more letters in s
// that say what it is about: not stop words, not paths.
func contentWords(s string) int {
	seen := map[string]bool{}
	for _, f := range strings.Fields(strings.ToLower(s)) {
		if strings.ContainsAny(f, "/\\") {
			continue
		}
		for _, w := range strings.FieldsFunc(f, func(r rune) bool { return !unicode.IsLetter(r) }) {
			if len([]rune(w)) >= 3 && !stopWords()[w] {
				seen[w] = true
			}
		}
	}
	return len(seen)
}

// corrects reports whether a user's message corrects the agent.
func corrects(text string) bool { return correctionRE().MatchString(strings.TrimSpace(text)) }
