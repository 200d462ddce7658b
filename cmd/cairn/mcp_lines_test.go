package main

// The MCP session over standard input survives what a client should not
// send.
//
// Bad inputs tried here: a line that is not JSON, a JSON-RPC batch, a JSON
// object that is no JSON-RPC message, a wrong version tag, blank lines, an
// unknown method; then a valid request must still be answered.

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestMCPSessionAnswersBadLinesAndGoesOn(t *testing.T) {
	needBinary(t)
	t.Parallel()
	dir := t.TempDir()
	db := filepath.Join(dir, "c.db")
	if out, err := exec.Command(cairnBin, "--db", db, "--project", "p", "add", "The session survives a bad line.").CombinedOutput(); err != nil {
		t.Fatalf("add: %v %s", err, out)
	}
	cmd := exec.Command(cairnBin, "--db", db, "--project", "p", "mcp")
	cmd.Env = binEnv(dir)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`,
		`not json at all`,
		``,
		`[{"jsonrpc":"2.0","id":2,"method":"tools/list"}]`,
		`{"foo":1}`,
		`{"jsonrpc":"1.0","id":7,"method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","id":5,"method":"no/such/method"}`,
		`{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"search","arguments":{"query":"bad line"}}}`,
	} {
		fmt.Fprintln(stdin, line)
	}
	codes := map[int]int{}
	idOf7, answered3 := false, false
	lines := make(chan string)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	timeout := time.After(30 * time.Second)
	for !answered3 {
		var line string
		var ok bool
		select {
		case line, ok = <-lines:
		case <-timeout:
			t.Fatalf("no answer to the search after the bad lines; errors so far %v", codes)
		}
		if !ok {
			t.Fatalf("the session ended; errors so far %v", codes)
		}
		var msg struct {
			ID     any             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct{ Code int }
		}
		if err := json.Unmarshal([]byte(line), &msg); err != nil {
			t.Fatalf("a line of the answer is not JSON: %q", line)
		}
		if msg.Error != nil {
			codes[msg.Error.Code]++
			idOf7 = idOf7 || msg.ID == 7.0
		}
		answered3 = msg.ID == 3.0 && strings.Contains(string(msg.Result), "survives a bad line")
	}
	stdin.Close()
	if codes[-32700] != 1 || codes[-32600] != 3 || codes[-32601] != 1 || !idOf7 {
		t.Errorf("error answers %v (id 7 echoed: %v); want one parse error, three invalid requests, one unknown method", codes, idOf7)
	}
}
