package server

import (
	"encoding/json"
	"io"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/config"
)

// postHook posts a hook payload to the server's http hook of event.
func postHook(t *testing.T, addr, event, payload string, header map[string]string) (int, string, time.Duration) {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), "POST", "http://"+addr+"/hooks/claude/"+event, strings.NewReader(payload))
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header.Set(k, v)
	}
	start := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), time.Since(start)
}

// An http hook whose block is not ready within the hook's timeout is
// answered empty, before the timeout; a block that is ready is answered.
func TestHTTPHookAnswersEmptyRatherThanLate(t *testing.T) {
	t.Parallel()
	slow := make(chan struct{})
	t.Cleanup(func() { close(slow) })
	s := openServer(t, func(c *Config) {
		c.Addr = "127.0.0.1:0"
		c.FolderConfiguration = func(dir string) (*config.Config, bool, error) {
			if filepath.Base(dir) == "slow" {
				<-slow // a configuration file on a hung network folder
			}
			return config.Default(), true, nil
		}
	})
	prompt := func(folder string) string {
		b, _ := json.Marshal(map[string]any{"session_id": "s-" + folder, "cwd": filepath.Join(t.TempDir(), folder),
			"hook_event_name": "UserPromptSubmit", "prompt": "why is the auth test flaky with the fake clock?"})
		return string(b)
	}
	status, body, took := postHook(t, s.Addr(), "UserPromptSubmit", prompt("slow"), map[string]string{"X-Cairn-Project": "p", "X-Cairn-Timeout": "0.5"})
	if status != http.StatusOK || body != "" || took >= 500*time.Millisecond {
		t.Errorf("slow block: %d %q after %v, want 200 and nothing within the 0.5 s timeout", status, body, took)
	}
	if log := s.log.String(); !strings.Contains(log, "http hook claude user-prompt-submit session s-slow: gave up after") {
		t.Errorf("the log does not say the hook gave up:\n%s", log)
	}
	status, body, _ = postHook(t, s.Addr(), "UserPromptSubmit", prompt("p"), map[string]string{"X-Cairn-Timeout": "10"})
	if status != http.StatusOK || !strings.Contains(body, "fake clock") || !strings.HasSuffix(body, "}\n") {
		t.Errorf("ready block: %d %q", status, body)
	}
}
