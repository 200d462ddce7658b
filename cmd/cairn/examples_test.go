package main

// examples/agent-loop.sh, run as a user would run it: the second agent
// iteration's context holds what the first one's output signalled.

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func TestAgentLoopExampleCarriesMemoryAcrossIterations(t *testing.T) {
	needBinary(t)
	t.Parallel()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), "bash", filepath.Join("..", "..", "examples", "agent-loop.sh"))
	cmd.Env = append(binEnv(dir), "CAIRN="+cairnBin)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("agent-loop.sh: %v\n%s", err, out)
	}
	text := string(out)
	first, second, ok := strings.Cut(text, "=== iteration 2:")
	if !ok {
		t.Fatalf("no second iteration:\n%s", text)
	}
	ctx1, _, _ := strings.Cut(first, "agent> ")
	ctx2, _, _ := strings.Cut(second, "agent> ")
	if strings.Contains(ctx1, "vendored protobuf") || !strings.Contains(ctx1, "nothing stored yet") {
		t.Errorf("the first context is not empty:\n%s", ctx1)
	}
	for _, want := range []string{"<cairn-context", "#### Pitfall\n- The vendored protobuf code in internal/pb goes stale", "[convention] Generated files live in internal/pb"} {
		if !strings.Contains(ctx2, want) {
			t.Errorf("the second context lacks %q:\n%s", want, ctx2)
		}
	}
	if !strings.Contains(first, "captured 2: 2 new") || !strings.Contains(second, "agent> The memory says") {
		t.Errorf("output:\n%s", text)
	}
}
