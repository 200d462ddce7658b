package main

// Secrets quoted in sentences reach no stored or shown text.
//
// A session's transcript and hook payloads hold passwords the way people
// and agents write them: inside a sentence, in a command line that does
// not start the line, in a Markdown table, in a .pgpass line quoted in
// prose. After the hooks and a transcript ingest ran, no byte of the
// database (memories, titles, tags, the activity log, the ingest state),
// of the files beside it (log, hook state) and of what the REST API and
// the event stream answer holds any of them.

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// sentenceSecrets are fake passwords, each written the way a sentence
// quotes it (see sentenceTranscript).
var sentenceSecrets = []string{"Fake-my-31x", "Fake-ssh-32x", "Fake-pg-33x", "Fake-tbl-34x", "Fake-dock-35x", "Fake-redis-36x"}

// sentenceTranscript is a Claude Code transcript of a session that quotes
// every secret of sentenceSecrets in prose, a failing and then passing
// deploy command, and an agent's MEMORY: line.
func sentenceTranscript(t *testing.T, cwd, session string) string {
	t.Helper()
	var lines []string
	n := 0
	add := func(typ string, msg any, extra map[string]any) {
		n++
		rec := map[string]any{
			"parentUuid": nil, "isSidechain": false, "userType": "external", "cwd": cwd,
			"sessionId": session, "version": "2.0.0", "type": typ, "message": msg,
			"uuid": "u-" + string(rune('a'+n)), "timestamp": "2026-10-01T10:0" + string(rune('0'+n%10)) + ":00.000Z",
		}
		for k, v := range extra {
			rec[k] = v
		}
		b, err := json.Marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		lines = append(lines, string(b))
	}
	text := func(s string) map[string]any {
		return map[string]any{"role": "assistant", "content": []any{map[string]any{"type": "text", "text": s}}}
	}
	toolUse := func(id, cmd string) map[string]any {
		return map[string]any{"role": "assistant", "content": []any{map[string]any{
			"type": "tool_use", "id": id, "name": "Bash", "input": map[string]any{"command": cmd}}}}
	}
	toolResult := func(id, out string, failed bool) map[string]any {
		return map[string]any{"role": "user", "content": []any{map[string]any{
			"type": "tool_result", "tool_use_id": id, "content": out, "is_error": failed}}}
	}
	add("user", map[string]any{"role": "user", "content": "Deploy to the gateway; I log in with mysql -uroot -p" + sentenceSecrets[0] + " gwdb first."}, nil)
	add("assistant", toolUse("toolu_1", "cd deploy && sshpass -p "+sentenceSecrets[1]+" scp build.tar pi@10.0.0.5:/opt"), nil)
	add("user", toolResult("toolu_1", "scp: /opt/build.tar: Permission denied", true), map[string]any{"toolUseResult": "Error: exit status 1"})
	add("assistant", toolUse("toolu_2", "cd deploy && sshpass -p "+sentenceSecrets[1]+" scp build.tar pi@10.0.0.5:/tmp"), nil)
	add("user", toolResult("toolu_2", "", false), nil)
	add("assistant", text("Copying to /tmp worked where /opt was denied. The .pgpass line db.example.com:5432:app:admin:"+sentenceSecrets[2]+
		" also works.\n\n| Field | Value |\n|---|---|\n| Password | "+sentenceSecrets[3]+" |\n\n"+
		"MEMORY:pitfall:Deploys copy to /tmp, not /opt (permission denied); we ran docker login -u ci -p "+sentenceSecrets[4]+
		" registry.example.com and redis-cli -a "+sentenceSecrets[5]+" ping before."), nil)
	return strings.Join(lines, "\n") + "\n"
}

func TestSecretsInSentencesReachNoStoredOrShownText(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.project = filepath.Base(c.dir)
	session := "5e1f0c2a-9d7b-4e3a-8c61-2b4f7a9e0d13"
	tr := c.writeFile("session.jsonl", sentenceTranscript(t, c.dir, session))
	prompt := func(event string, payload map[string]any) {
		payload["session_id"], payload["transcript_path"], payload["cwd"], payload["hook_event_name"] = session, tr, c.dir, event
		b, _ := json.Marshal(payload)
		if r := c.raw(string(b), "--db", c.db, "hook", "claude", kebab(event)); r.code != 0 {
			t.Fatalf("hook %s: %v", event, r)
		}
	}
	prompt("UserPromptSubmit", map[string]any{"prompt": "then run sshpass -p " + sentenceSecrets[1] + " ssh pi@gw and the .pgpass line db.example.com:5432:app:admin:" + sentenceSecrets[2]})
	prompt("PreToolUse", map[string]any{"tool_name": "Bash", "tool_input": map[string]any{"command": "cd deploy && sshpass -p " + sentenceSecrets[1] + " ssh pi@gw ./deploy.sh"}})
	prompt("Stop", map[string]any{"stop_hook_active": false})
	c.ok("ingest", "claude", tr)
	if len(c.listJSON()) == 0 {
		t.Fatal("nothing was stored: the test would prove nothing")
	}

	// Every byte on disk: the database and its log, the hooks' log and
	// state, whatever else cairn wrote beside them.
	var files []string
	filepath.Walk(c.dir, func(p string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() && p != tr {
			files = append(files, p)
		}
		return nil
	})
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range sentenceSecrets {
			if strings.Contains(string(b), s) {
				t.Errorf("%s holds the secret %s", strings.TrimPrefix(f, c.dir), s)
			}
		}
	}
	// What is shown: list, search, the activity log and the events (as
	// the REST API and the web page read them).
	for _, args := range [][]string{
		{"list", "--json", "--limit", "100"},
		{"search", "--json", "deploy gateway pgpass password"},
		{"log", "--json", "--limit", "100"},
		{"export"},
	} {
		out := c.ok(args...).stdout
		for _, s := range sentenceSecrets {
			if strings.Contains(out, s) {
				t.Errorf("cairn %s shows the secret %s", args[0], s)
			}
		}
	}
}

// kebab is a hook event's name as the command takes it.
func kebab(event string) string {
	var b strings.Builder
	for i, r := range event {
		if r >= 'A' && r <= 'Z' {
			if i > 0 {
				b.WriteByte('-')
			}
			r += 'a' - 'A'
		}
		b.WriteRune(r)
	}
	return b.String()
}
