package install

import (
	"fmt"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
)

// Hook is one hook cairn installs: on Event (Claude Code's or Codex's name,
// e.g. "SessionStart"), run Command, or, when URL is set, POST the event
// to URL (Claude Code's "type": "http"), with a Timeout in seconds.
// Matcher is empty for "every occurrence" and is then left out of the
// file.
type Hook struct {
	Event   string
	Matcher string
	Command string
	URL     string
	Timeout int
	// NoDatabase: an http hook without the database's headers
	// (Setup.HTTPNoDatabase).
	NoDatabase bool
}

// HTTPEvents are the events an http hook answers (Setup.HTTP): those
// that add context while a session runs. SessionStart stays a command
// hook, since it starts the server the others reach, and so do the
// events that capture, which read the transcript where the session runs.
var HTTPEvents = []string{"UserPromptSubmit", "PreToolUse", "PostToolUseFailure", "SubagentStart"}

// httpEnv are the variables an http hook passes to the server in
// headers (name, variable, value), as the command hook reads them from
// its environment: the project (CAIRN_PROJECT), an agent loop's task
// (CAIRN_TASK), and the database (CAIRN_DB, CAIRN_DB_FILE), which the
// server checks is its own (server.HookDatabaseHeader).
var httpEnv = [][3]string{
	{"X-Cairn-Project", "CAIRN_PROJECT", "${CAIRN_PROJECT}"},
	{"X-Cairn-Task", "CAIRN_TASK", "${CAIRN_TASK}"},
	{"X-Cairn-Database", "CAIRN_DB", "CAIRN_DB=${CAIRN_DB}"},
	{"X-Cairn-Database-File", "CAIRN_DB_FILE", "${CAIRN_DB_FILE}"},
}

// cairnURLRE matches the URL of cairn's http hook: a loopback address's
// /hooks/claude/<Event>.
var cairnURLRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^http://(127\.0\.0\.1|localhost|\[::1\]):[0-9]+/hooks/claude/([A-Za-z]+)$`)
})

// IsCairnHTTPHook reports whether an http hook's URL is one cairn
// installs, and for which event (Claude Code's name).
func IsCairnHTTPHook(url string) (event string, ok bool) {
	m := cairnURLRE().FindStringSubmatch(url)
	if m == nil {
		return "", false
	}
	return m[2], true
}

// isCairnHandler reports whether a hook handler of a settings file is
// cairn's: a command hook running cairn's hook handler, or an http hook
// at cairn's URL.
func isCairnHandler(h *node) bool {
	if cmd, ok := h.get("command").str(); ok {
		if _, ok := IsCairnHook(cmd); ok {
			return true
		}
	}
	if typ, _ := h.get("type").str(); typ == "http" {
		url, _ := h.get("url").str()
		_, ok := IsCairnHTTPHook(url)
		return ok
	}
	return false
}

// describe is how a note names a hook: its command, or its URL.
func (h Hook) describe() string {
	if h.URL != "" {
		return "POST " + h.URL
	}
	return h.Command
}

// describeHandler is how a note names a hook handler of a file.
func describeHandler(n *node) string {
	if url, ok := n.get("url").str(); ok {
		return "POST " + url
	}
	cmd, _ := n.get("command").str()
	return cmd
}

// HookEvents maps the hook events cairn knows to the kebab-case names that
// `cairn hook claude EVENT` takes.
var HookEvents = map[string]string{
	"SessionStart":     "session-start",
	"UserPromptSubmit": "user-prompt-submit",
	"Stop":             "stop",
	"SubagentStop":     "subagent-stop",
	"PreCompact":       "pre-compact",
	"SessionEnd":       "session-end",
	"PostToolUse":      "post-tool-use",
	"PreToolUse":       "pre-tool-use",
	"SubagentStart":    "subagent-start",
	// PostToolUseFailure follows a failed tool call: cairn answers with
	// the memory of the same error.
	"PostToolUseFailure": "post-tool-use-failure",
}

// cairnHookRE matches a hook command that runs cairn's hook handler:
// "<words> hook claude|codex <event> [--flags]", where the word before
// "hook" is a program (or path) whose name starts with "cairn".
var cairnHookRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(.*?)(\S+)\s+hook\s+(claude|codex)\s+([a-z][a-z-]*)((\s+--[a-z][a-z-]*(=\S*)?)*)\s*$`)
})

// IsCairnHook reports whether a hook command is one cairn installs, and for
// which kebab-case event.
func IsCairnHook(command string) (event string, ok bool) {
	m := cairnHookRE().FindStringSubmatch(command)
	if m == nil || !isCairnProgram(m[2]) {
		return "", false
	}
	return m[4], true
}

// isCairnProgram reports whether a (possibly quoted) program word names a
// cairn binary: its base name starts with "cairn".
func isCairnProgram(word string) bool {
	word = strings.Trim(word, `'"`)
	return strings.HasPrefix(filepath.Base(word), "cairn")
}

// schemaError is a settings file whose shape cairn does not understand.
func schemaError(path, msg string) error {
	return &SyntaxError{Path: path, Msg: msg}
}

// mergeHooks makes the cairn hooks in doc's "hooks" object exactly want:
// each wanted hook present once (added in a group of its own at the end of
// its event's list, or updated in place), and every other cairn hook
// removed, but those whose command leave (when not nil) keeps, which are
// left as they are. Everything else is left as it was. It returns what
// changed.
func mergeHooks(path string, doc *node, want []Hook, leave func(handler *node) bool) ([]string, error) {
	hooks := doc.get("hooks")
	if hooks != nil && !hooks.isObject() {
		return nil, schemaError(path, `"hooks" is not a JSON object`)
	}
	var notes []string
	if hooks != nil {
		for i, ev := range hooks.keys {
			if !hooks.vals[i].isArray() {
				return nil, schemaError(path, fmt.Sprintf("hooks.%s is not a JSON array", ev))
			}
		}
	}
	wanted := map[string]Hook{}
	for _, h := range want {
		wanted[h.Event] = h
	}
	// Update or remove what is there.
	found := map[string]bool{}
	touched := map[*node]bool{} // groups cairn removed a handler from
	if hooks != nil {
		for i, ev := range hooks.keys {
			for _, group := range hooks.vals[i].vals {
				handlers := group.get("hooks")
				if !handlers.isArray() {
					continue
				}
				kept := handlers.vals[:0:0]
				for _, h := range handlers.vals {
					if !isCairnHandler(h) || leave != nil && leave(h) {
						kept = append(kept, h)
						continue
					}
					w, want := wanted[ev]
					if !want || found[ev] {
						notes = append(notes, fmt.Sprintf("- hook %s: %s", ev, describeHandler(h)))
						touched[group] = true
						continue
					}
					found[ev] = true
					if !sameHandler(h, w) {
						// Set cairn's keys; keep the ones a user added.
						nw := handler(w)
						if t, _ := h.get("type").str(); t != handlerType(w) {
							// The other kind of hook (a command hook
							// that becomes an http one): cairn's keys
							// as a new hook has them, then the user's.
							for i, k := range h.keys {
								if !slices.Contains(ownKeys, k) {
									nw.set(k, h.vals[i])
								}
							}
							h.keys, h.vals = nw.keys, nw.vals
						}
						for _, k := range nw.keys {
							h.set(k, nw.get(k))
						}
						notes = append(notes, fmt.Sprintf("~ hook %s: %s (timeout %ds)", ev, w.describe(), w.Timeout))
					}
					kept = append(kept, h)
				}
				handlers.vals = kept
			}
		}
	}
	// Add what is missing.
	for _, w := range want {
		if found[w.Event] {
			continue
		}
		if hooks == nil {
			hooks = newObject()
			doc.set("hooks", hooks)
		}
		list := hooks.get(w.Event)
		if list == nil {
			list = newArray()
			hooks.set(w.Event, list)
		}
		group := newObject()
		if w.Matcher != "" {
			group.set("matcher", scalar(w.Matcher))
		}
		hs := newArray()
		hs.vals = append(hs.vals, handler(w))
		group.set("hooks", hs)
		list.vals = append(list.vals, group)
		notes = append(notes, fmt.Sprintf("+ hook %s: %s (timeout %ds)", w.Event, w.describe(), w.Timeout))
	}
	if len(touched) > 0 {
		pruneHooks(doc, touched)
	}
	return notes, nil
}

// ByName reports whether command (a program and its leading arguments)
// runs its program by name, found on PATH (cairn), not by a path of one
// machine (/usr/local/bin/cairn, ./cairn): only such a command belongs
// in settings a project shares.
func ByName(command []string) bool {
	return len(command) > 0 && command[0] != "" && !strings.ContainsAny(command[0], `/\`)
}

// commandByName is ByName of a command line's words.
func commandByName(command string) bool {
	words, err := SplitCommand(command)
	return err == nil && ByName(words)
}

// namesNoPath reports whether a hook handler names no path of this
// machine: an http hook (its URL is the local server's, on any machine),
// or a command by name.
func namesNoPath(h *node) bool {
	if typ, _ := h.get("type").str(); typ == "http" {
		return true
	}
	cmd, _ := h.get("command").str()
	return commandByName(cmd)
}

// pruneHooks removes what removing cairn's handlers emptied, and only
// that: a group cairn took a handler from that has no handler left, then
// an event whose last group went that way, then the "hooks" object when
// its last event did. A user's own empty group, event or "hooks" object
// stays.
func pruneHooks(doc *node, touched map[*node]bool) {
	hooks := doc.get("hooks")
	if !hooks.isObject() {
		return
	}
	emptied := false
	for i := 0; i < len(hooks.keys); i++ {
		list := hooks.vals[i]
		kept := list.vals[:0:0]
		for _, g := range list.vals {
			if hs := g.get("hooks"); touched[g] && len(hs.vals) == 0 {
				continue
			}
			kept = append(kept, g)
		}
		if len(kept) == len(list.vals) {
			continue
		}
		list.vals = kept
		if len(list.vals) == 0 {
			hooks.del(hooks.keys[i])
			emptied = true
			i--
		}
	}
	if emptied && len(hooks.keys) == 0 {
		doc.del("hooks")
	}
}

// handlerType is the "type" of h's handler: "command" or "http".
func handlerType(h Hook) string {
	if h.URL != "" {
		return "http"
	}
	return "command"
}

// ownKeys are the keys of cairn's hook handlers, of both kinds.
var ownKeys = []string{"type", "command", "url", "timeout", "headers", "allowedEnvVars"}

// handler is the JSON of one cairn hook handler. An http hook tells the
// server its timeout (X-Cairn-Timeout: it answers before it) and passes
// CAIRN_PROJECT, CAIRN_TASK, CAIRN_DB and CAIRN_DB_FILE (httpEnv) as the
// command hook reads them.
func handler(h Hook) *node {
	n := newObject()
	if handlerType(h) == "command" {
		n.set("type", scalar("command"))
		n.set("command", scalar(h.Command))
		n.set("timeout", scalar(h.Timeout))
		return n
	}
	n.set("type", scalar("http"))
	n.set("url", scalar(h.URL))
	n.set("timeout", scalar(h.Timeout))
	headers := newObject()
	headers.set("X-Cairn-Timeout", scalar(fmt.Sprint(h.Timeout)))
	vars := newArray()
	for _, e := range httpEnv {
		if h.NoDatabase && strings.HasPrefix(e[1], "CAIRN_DB") {
			continue
		}
		headers.set(e[0], scalar(e[2]))
		vars.vals = append(vars.vals, scalar(e[1]))
	}
	n.set("headers", headers)
	n.set("allowedEnvVars", vars)
	return n
}

// sameHandler reports whether n already holds cairn's keys of h (type,
// command, timeout); keys a user added (async, …) do not count.
func sameHandler(n *node, h Hook) bool {
	want := handler(h)
	for _, k := range want.keys {
		if v := n.get(k); v == nil || string(encode(v, "")) != string(encode(want.get(k), "")) {
			return false
		}
	}
	return true
}

// MCPServer is a stdio MCP server entry: {"type": "stdio", "command", "args"}.
type MCPServer struct {
	Command string
	Args    []string
}

// IsCairnServer reports whether an MCP server entry runs a cairn binary:
// its command, or one of its arguments (as in "go run ./cmd/cairn mcp"),
// names a program whose base name starts with "cairn".
func IsCairnServer(command string, args []string) bool {
	if isCairnProgram(command) {
		return true
	}
	for _, a := range args {
		if isCairnProgram(a) {
			return true
		}
	}
	return false
}

// serverNode is the JSON of cairn's MCP server entry.
func serverNode(s MCPServer) *node {
	n := newObject()
	n.set("type", scalar("stdio"))
	n.set("command", scalar(s.Command))
	args := newArray()
	for _, a := range s.Args {
		args.vals = append(args.vals, scalar(a))
	}
	n.set("args", args)
	return n
}

// serverOf reads an MCP server entry's command and args.
func serverOf(n *node) (string, []string) {
	cmd, _ := n.get("command").str()
	var args []string
	if a := n.get("args"); a.isArray() {
		for _, v := range a.vals {
			s, _ := v.str()
			args = append(args, s)
		}
	}
	return cmd, args
}

// mergeServer adds (s != nil) or removes (s == nil) the MCP server entry
// named name in doc's "mcpServers" object. An entry of that name that does
// not run cairn is an error on install and left alone on uninstall.
func mergeServer(path string, doc *node, name string, s *MCPServer) ([]string, error) {
	servers := doc.get("mcpServers")
	if servers != nil && !servers.isObject() {
		return nil, schemaError(path, `"mcpServers" is not a JSON object`)
	}
	var cur *node
	if servers != nil {
		cur = servers.get(name)
	}
	if cur != nil {
		cmd, args := serverOf(cur)
		if !cur.isObject() || !IsCairnServer(cmd, args) {
			if s == nil {
				return []string{fmt.Sprintf("  MCP server %q does not run cairn; left alone", name)}, nil
			}
			return nil, schemaError(path, fmt.Sprintf("mcpServers.%s exists and does not run cairn; rename or remove it, then run again", name))
		}
	}
	if s == nil {
		if cur == nil {
			return nil, nil
		}
		servers.del(name)
		if len(servers.keys) == 0 {
			doc.del("mcpServers")
		}
		cmd, args := serverOf(cur)
		return []string{fmt.Sprintf("- MCP server %s: %s", name, strings.Join(append([]string{cmd}, args...), " "))}, nil
	}
	want := serverNode(*s)
	desc := strings.Join(append([]string{s.Command}, s.Args...), " ")
	if cur != nil {
		same := true
		for _, k := range want.keys {
			if v := cur.get(k); v == nil || string(encode(v, "")) != string(encode(want.get(k), "")) {
				same = false
			}
		}
		if same {
			return nil, nil
		}
		// Keep the user's extra keys (env, …); set cairn's own.
		for _, k := range want.keys {
			cur.set(k, want.get(k))
		}
		return []string{fmt.Sprintf("~ MCP server %s: %s", name, desc)}, nil
	}
	if servers == nil {
		servers = newObject()
		doc.set("mcpServers", servers)
	}
	servers.set(name, want)
	return []string{fmt.Sprintf("+ MCP server %s: %s", name, desc)}, nil
}
