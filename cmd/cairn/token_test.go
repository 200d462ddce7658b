package main

import (
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTokenSecretIsPrintedOnceAndNeverStored creates a token, lists it and
// revokes it; bad input tried: an unknown action, revoke without an id or
// with an unknown one.
func TestTokenSecretIsPrintedOnceAndNeverStored(t *testing.T) {
	t.Parallel()
	dir := serveDir(t)
	db := filepath.Join(dir, "c.db")
	run := func(args ...string) result {
		t.Helper()
		return runBin(t.Context(), dir, "", append([]string{"--db", db, "--project", "p"}, args...)...)
	}
	r := run("token", "create", "--read-only", "--name", "ci")
	secret := strings.TrimSpace(r.stdout)
	if r.code != 0 || !strings.HasPrefix(secret, "cairn_") || strings.Contains(r.stderr, secret) {
		t.Fatalf("token create: %v", r)
	}
	r = run("token", "list", "--json")
	var toks []map[string]any
	if err := json.Unmarshal([]byte(r.stdout), &toks); err != nil || len(toks) != 1 {
		t.Fatalf("token list --json: %v (%v)", r, err)
	}
	if toks[0]["project"] != "p" || toks[0]["read_only"] != true || toks[0]["name"] != "ci" || strings.Contains(r.stdout, secret) {
		t.Errorf("token list shows %v", toks[0])
	}
	for _, f := range []string{db, db + "-wal"} {
		if b, err := os.ReadFile(f); err == nil && strings.Contains(string(b), secret) {
			t.Errorf("%s holds the secret", f)
		}
	}
	for _, bad := range [][]string{{"token", "frob"}, {"token", "revoke"}, {"token"}} {
		if r := run(bad...); r.code != exitUsage {
			t.Errorf("%v: %v, want exit 2", bad, r)
		}
	}
	if r := run("token", "revoke", "tok-000000000000"); r.code != exitFailure || !strings.Contains(r.stderr, "no token") {
		t.Errorf("revoking an unknown token: %v", r)
	}
	if r := run("token", "revoke", toks[0]["id"].(string)); r.code != 0 {
		t.Fatalf("revoke: %v", r)
	}
	if r := run("token", "list", "--json"); strings.TrimSpace(r.stdout) != "[]" {
		t.Errorf("after revoke: %v", r)
	}
}

// TestServeAnswersTheRESTAPI adds, searches and gets a memory over /api of
// a running serve, and sends a request naming another host (DNS
// rebinding), which is refused.
func TestServeAnswersTheRESTAPI(t *testing.T) {
	t.Parallel()
	h := startHTTPServe(t, "shop")
	base := strings.TrimSuffix(h.url, "/mcp") + "/api/projects/shop"
	resp, err := http.Post(base+"/memories", "application/json", strings.NewReader(`{"type":"pitfall","content":"The cart total rounds per line, not per order."}`))
	if err != nil {
		t.Fatal(err)
	}
	var w struct{ Memory struct{ ID string } }
	json.NewDecoder(resp.Body).Decode(&w)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || w.Memory.ID == "" {
		t.Fatalf("add: %d %+v", resp.StatusCode, w)
	}
	resp, err = http.Get(base + "/search?q=cart+rounding")
	if err != nil {
		t.Fatal(err)
	}
	var hits []struct{ ID string }
	json.NewDecoder(resp.Body).Decode(&hits)
	resp.Body.Close()
	if len(hits) != 1 || hits[0].ID != w.Memory.ID {
		t.Errorf("search: %+v", hits)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", base+"/memories/"+w.Memory.ID, nil)
	req.Host = "rebound.example:7421"
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden {
		t.Errorf("a request naming another host: %d, want 403", resp.StatusCode)
	}
}

// A token is made, listed and revoked through the server's Unix socket,
// which only the database's owner can open, and refused through its HTTP
// port, even on loopback, with a message that says where to make one:
// nothing is made there.
func TestTokensGoThroughTheSocketAndAreRefusedOverHTTP(t *testing.T) {
	t.Parallel()
	dir := serveDir(t)
	db := filepath.Join(dir, "c.db")
	h := startHTTPServeIn(t, dir, "p", "--addr", "127.0.0.1:0")
	base := strings.TrimSuffix(h.url, "/mcp")
	for _, args := range [][]string{{"token", "create", "--name", "ci"}, {"token", "list"}, {"token", "revoke", "tok-000000000000"}} {
		r := runBin(t.Context(), dir, "", append([]string{"--db", db, "--project", "p", "--server", base}, args...)...)
		if r.code != exitFailure || !strings.Contains(r.stderr, "Unix socket") || r.stdout != "" {
			t.Errorf("%v over HTTP: %v, want a failure saying where tokens are made", args, r)
		}
	}
	c := newCLI(t)
	c.db, c.project, c.wd = db, "p", dir
	if r := c.ok("token", "list", "--json"); !r.served || strings.TrimSpace(r.stdout) != "[]" {
		t.Fatalf("token list on the socket: %v, want none made over HTTP", r)
	}
	r := c.ok("token", "create", "--read-only", "--json")
	var tok struct {
		ID, Token, Project string
		ReadOnly           bool `json:"read_only"`
	}
	if err := json.Unmarshal([]byte(r.stdout), &tok); err != nil || !r.served || tok.Project != "p" || !tok.ReadOnly || !strings.HasPrefix(tok.Token, "cairn_") {
		t.Fatalf("token create on the socket: %v (%v)", r, err)
	}
	req, _ := http.NewRequestWithContext(t.Context(), "GET", base+"/api/projects/p/stats", nil)
	req.Header.Set("Authorization", "Bearer "+tok.Token)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusOK {
		t.Errorf("the token made on the socket over HTTP: %v, %v", resp, err)
	} else {
		resp.Body.Close()
	}
	if r := c.ok("token", "revoke", tok.ID); !r.served || r.stdout != "revoked "+tok.ID+"\n" {
		t.Errorf("token revoke on the socket: %v", r)
	}
}
