package main

// The web page of `cairn serve` in a real browser: headless Chromium
// driven by playwright-core (testdata/webui/browser.mjs), against the
// real binary. It runs when CAIRN_TEST_CHROMIUM names the Chromium
// binary and CAIRN_TEST_PLAYWRIGHT playwright-core's folder (.ci/run
// installs both), and skips saying so otherwise.

import (
	"context"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestWebPageInChromium(t *testing.T) {
	chromium, playwright := os.Getenv("CAIRN_TEST_CHROMIUM"), os.Getenv("CAIRN_TEST_PLAYWRIGHT")
	if chromium == "" || playwright == "" {
		t.Skip("set CAIRN_TEST_CHROMIUM to a Chromium binary and CAIRN_TEST_PLAYWRIGHT to playwright-core's folder to test the web page in a browser (.ci/run does)")
	}
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed: the browser test's driver runs on it")
	}
	h := startHTTPServe(t, "webproj")
	base := strings.TrimSuffix(h.url, "mcp")
	if r := runBin(t.Context(), h.dir, "", "--db", h.db, "--project", "webproj", "add", "--type", "decision",
		"--title", "SQLite by default", "SQLite is the default store: nothing to install."); r.code != 0 {
		t.Fatalf("cairn add: %s", r.stderr)
	}

	// Screenshots are kept after the test, in a folder it names.
	shots, err := os.MkdirTemp("", "cairn-ui-shots-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots of the page: %s", shots)

	script, err := filepath.Abs(filepath.Join("testdata", "webui", "browser.mjs"))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, script)
	cmd.Dir = h.dir
	cmd.Env = append(binEnv(h.dir),
		"CAIRN_UI_URL="+base, "CAIRN_BIN="+cairnBin, "CAIRN_DB="+h.db, "CAIRN_PROJECT=webproj",
		"CAIRN_TEST_CHROMIUM="+chromium, "CAIRN_TEST_PLAYWRIGHT="+playwright, "CAIRN_UI_SHOTS="+shots)
	out, err := cmd.CombinedOutput()
	t.Logf("browser steps:\n%s", out)
	if err != nil {
		t.Fatalf("the browser test failed: %v\nserver log:\n%s", err, h.log())
	}
	if to := os.Getenv("CAIRN_UI_SCREENSHOT_TO"); to != "" {
		// Refresh the README's picture: CAIRN_UI_SCREENSHOT_TO=docs/web-ui.png
		b, err := os.ReadFile(filepath.Join(shots, "memories.png"))
		if err == nil {
			err = os.WriteFile(to, b, 0o644)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
}

// The page is served at / with its security headers, and refused under a
// host name that is not loopback (DNS rebinding), as the API is.
func TestServeAnswersTheWebPage(t *testing.T) {
	h := startHTTPServe(t, "webproj")
	base := strings.TrimSuffix(h.url, "mcp")
	get := func(path, host string) (*http.Response, string) {
		req, err := http.NewRequestWithContext(t.Context(), http.MethodGet, base+path, nil)
		if err != nil {
			t.Fatal(err)
		}
		if host != "" {
			req.Host = host
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer res.Body.Close()
		b, _ := io.ReadAll(res.Body)
		return res, string(b)
	}
	res, body := get("", "")
	if res.StatusCode != 200 || !strings.Contains(body, `<meta name="cairn-project" content="webproj">`) {
		t.Fatalf("GET / answered %d:\n%s", res.StatusCode, body)
	}
	if csp := res.Header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") {
		t.Errorf("GET / has no script policy: %q", csp)
	}
	for _, p := range []string{"ui/app.js", "ui/api.js", "ui/style.css"} {
		if res, _ := get(p, ""); res.StatusCode != 200 {
			t.Errorf("GET /%s answered %d", p, res.StatusCode)
		}
	}
	// Bad requests tried: a file that is not there, and the page under a
	// foreign host name.
	if res, _ := get("ui/nothing.js", ""); res.StatusCode != 404 {
		t.Errorf("GET /ui/nothing.js answered %d, want 404", res.StatusCode)
	}
	if res, _ := get("", "attacker.example:7421"); res.StatusCode != 403 {
		t.Errorf("GET / with Host attacker.example answered %d, want 403", res.StatusCode)
	}
}
