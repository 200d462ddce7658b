// Package benchio is what the bench tools share: reading a file of
// queries, the payloads of Claude Code's hooks, and the percentiles of
// measured times.
package benchio

import (
	"bufio"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// HookEvent is Claude Code's name of the hook a bench event calls:
// UserPromptSubmit for "prompt", PreToolUse for "bash" and "read".
func HookEvent(event string) string {
	if event == "prompt" {
		return "UserPromptSubmit"
	}
	return "PreToolUse"
}

// HookPayload is the JSON Claude Code sends to the hook of event in
// session, from the folder cwd: for "prompt" a prompt of line, for
// "bash" a Bash call running line, for "read" a Read of the file line
// names in cwd (which the hooks answer with nothing).
func HookPayload(event, session, cwd, line string) []byte {
	p := map[string]any{"session_id": session, "transcript_path": "/nowhere.jsonl", "cwd": cwd,
		"permission_mode": "default", "hook_event_name": HookEvent(event)}
	switch event {
	case "bash":
		p["tool_name"], p["tool_input"], p["tool_use_id"] = "Bash", map[string]any{"command": line, "description": "run it"}, "toolu_bench"
	case "read":
		p["tool_name"], p["tool_input"], p["tool_use_id"] = "Read", map[string]any{"file_path": filepath.Join(cwd, line)}, "toolu_bench"
	default:
		p["prompt"] = line
	}
	b, _ := json.Marshal(p)
	return b
}

// ReadLines returns the lines of the file at path that are not blank,
// without a trailing "\r" (lines up to 1 MiB).
func ReadLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var lines []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		if l := strings.TrimRight(sc.Text(), "\r"); strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	return lines, sc.Err()
}

// Percentile is the nearest-rank percentile of sorted (0 < p <= 100): the
// smallest value with at least p% of the values at or below it; 0 for no
// values.
func Percentile[T ~float64 | ~int64](sorted []T, p float64) T {
	if len(sorted) == 0 {
		return 0
	}
	k := max(int(math.Ceil(p/100*float64(len(sorted)))), 1)
	return sorted[min(k, len(sorted))-1]
}

// MS is d in milliseconds.
func MS(d time.Duration) float64 { return float64(d) / 1e6 }
