package failure

import (
	"slices"
	"strings"
	"testing"
)

func TestErrorLinesNameTheErrorNotTheRunnersSummary(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, out string
		want      []string
	}{
		{"go build in a test run", "# example.com/app/internal/cache\ninternal/cache/lru.go:41:2: declared and not used: hits\nFAIL\texample.com/app/internal/cache [build failed]\nFAIL",
			[]string{"internal/cache/lru.go:41:2: declared and not used: hits"}},
		{"go test assertion", "=== RUN   TestEvict\n    lru_test.go:18: evicted the wrong key: got \"b\", want \"a\"\n--- FAIL: TestEvict (0.00s)\nFAIL\nexit status 1\nFAIL\texample.com/app/internal/cache\t0.012s",
			[]string{"lru_test.go:18: evicted the wrong key: got \"b\", want \"a\""}},
		{"rustc", "error[E0425]: cannot find value `conn` in this scope\n  --> src/db.rs:12:5\n   |\n12 |     conn.execute()\n   |     ^^^^ not found in this scope\n\nerror: could not compile `app` (lib) due to 1 previous error",
			[]string{"error[E0425]: cannot find value `conn` in this scope"}},
		{"python traceback", "Traceback (most recent call last):\n  File \"/srv/app/main.py\", line 3, in <module>\n    import ruamel\nModuleNotFoundError: No module named 'ruamel'",
			[]string{"ModuleNotFoundError: No module named 'ruamel'"}},
		{"pytest summary", "=========================== short test summary info ============================\nFAILED tests/test_parse.py::test_dates - AssertionError: expected a date, got None\n1 failed, 3 passed in 0.21s",
			[]string{"AssertionError: expected a date, got None"}},
		{"shell", "Exit code 127\n/bin/bash: line 1: protoc: command not found",
			[]string{"/bin/bash: line 1: protoc: command not found"}},
		{"make and tar", "tar: /tmp/pkg.tar.gz: Cannot open: No such file or directory\ntar: Error is not recoverable: exiting now\nmake: *** [deploy] Error 2",
			[]string{"tar: /tmp/pkg.tar.gz: Cannot open: No such file or directory", "tar: Error is not recoverable: exiting now"}},
		{"sibling", "<tool_use_error>Sibling tool call errored</tool_use_error>", nil},
		{"only a summary", "FAIL\texample.com/app [build failed]\nExit code 1", nil},
		{"testify", "    Error Trace:\tcart_test.go:12\n    Error:      \tNot equal:\n    \t            \texpected: 3\n    \t            \tactual  : 2\n    Test:       \tTestCart", nil},
		{"warnings only", "src/a.c:3:5: warning: unused variable 'x'", nil},
		{"ansi", "\x1b[31merror\x1b[0m: failed to push some refs to 'origin'", []string{"error: failed to push some refs to 'origin'"}},
	} {
		if got := ErrorLines(tc.out, 5); !slices.Equal(got, tc.want) {
			t.Errorf("%s: ErrorLines = %q, want %q", tc.name, got, tc.want)
		}
	}
}

func TestErrorLinesAreBoundedAndWithoutRepeats(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	for i := 0; i < 50; i++ {
		b.WriteString("src/m.rs:1:1: error: mismatched types in call number ")
		b.WriteString(strings.Repeat("9", i%3+1))
		b.WriteString("\n")
	}
	b.WriteString("src/n.rs:4:2: error: unresolved import `crate::gone`\n")
	got := ErrorLines(b.String(), 3)
	if len(got) != 2 || !strings.Contains(got[1], "unresolved import") {
		t.Errorf("ErrorLines = %q: want the repeated line once, then the other", got)
	}
	long := "error: " + strings.Repeat("x", 10000)
	if got := ErrorLines(long, 3); len(got) != 0 {
		t.Errorf("a 10 kB line is data, not a message: %q", got)
	}
	if got := ErrorLines("error: the value '"+strings.Repeat("v", 500)+"' is invalid for this field", 3); len(got) != 1 || len(got[0]) > MaxLineBytes {
		t.Errorf("a long error line is cut to %d bytes: %q", MaxLineBytes, got)
	}
}

func TestNormalizeKeepsTheErrorAndDropsWhatChanges(t *testing.T) {
	t.Parallel()
	same := [][2]string{
		{"/home/ana/src/app/db.go:12:3: undefined: Conn", "/Users/bo/work/app/db.go:40:9: undefined: Conn"},
		{"tar: /tmp/pkg-1.2.tar.gz: Cannot open: No such file or directory", "tar: /var/tmp/pkg-1.3.tar.gz: Cannot open: No such file or directory"},
		{"panic: runtime error at 0x7ffd3a2b1c00", "panic: runtime error at 0x55aa01"},
		{"request a1b2c3d4-0000-4000-8000-123456789abc failed with 503", "request 9e8f7a6b-1111-4111-8111-abcdefabcdef failed with 502"},
		{"build 4f2c9e1 failed", "build 77aa09b failed"},
	}
	for _, p := range same {
		if Normalize(p[0]) != Normalize(p[1]) || Signature(p[0]) != Signature(p[1]) {
			t.Errorf("%q and %q normalise to %q and %q", p[0], p[1], Normalize(p[0]), Normalize(p[1]))
		}
	}
	if Signature("undefined: Conn") == Signature("undefined: Pool") {
		t.Error("different names gave the same signature")
	}
	if got := Normalize("ModuleNotFoundError: No module named 'ruamel'"); got != "modulenotfounderror: no module named 'ruamel'" {
		t.Errorf("Normalize = %q", got)
	}
}

func TestCommandKeyAndCore(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ cmd, key, core string }{
		{"go test ./...", "go test", "go test ./..."},
		{"cd api && SHOP_DB=x.db cargo build --release 2>&1 | tail -5", "cargo build", "cargo build --release"},
		{"./scripts/deploy.sh prod", "deploy.sh prod", "./scripts/deploy.sh prod"},
		{"python3.12 -m pytest -q tests/", "python -m pytest", "python3.12 -m pytest -q tests/"},
		{"uv run pytest", "pytest", "pytest"},
		{"nix develop -c golangci-lint run", "golangci-lint run", "golangci-lint run"},
		{"timeout 60 npm test", "npm test", "npm test"},
		{"sshpass -p 'secret' ssh -p 2222 root@10.0.0.1 'ls /opt'", "ssh", `ssh -p 2222 root@10.0.0.1 ""`},
		{"cd x && ls", "", ""},
		{"cat <<'EOF' > notes.md\nrm -rf /\nEOF\nmake build", "make build", "make build"},
	} {
		if got := CommandKey(tc.cmd); got != tc.key {
			t.Errorf("CommandKey(%q) = %q, want %q", tc.cmd, got, tc.key)
		}
		if got := Core(tc.cmd); got != tc.core {
			t.Errorf("Core(%q) = %q, want %q", tc.cmd, got, tc.core)
		}
	}
}

func TestReadOnlyInstallsMissing(t *testing.T) {
	t.Parallel()
	for _, c := range []string{"ls -la", "git status && git diff", "cat go.mod | head", "grep -rn foo .", "which protoc", "go version", "cargo --version"} {
		if !ReadOnly(c) {
			t.Errorf("ReadOnly(%q) = false", c)
		}
	}
	for _, c := range []string{`sqlite3 app.db "SELECT COUNT(*) FROM users;"`, `psql -c 'select 1' shop`} {
		if !ReadOnly(c) {
			t.Errorf("ReadOnly(%q) = false", c)
		}
	}
	for _, c := range []string{"git add -A && git commit -m wip && git push", `curl -s localhost:3000/api/items | python3 -m json.tool`, "gh pr view 12",
		`python3 -c "import cv2; print(cv2.__version__)"`, "cargo run --release"} {
		if !Inert(c) || ReadOnly(c) && strings.HasPrefix(c, "git add") {
			t.Errorf("Inert(%q) = false", c)
		}
	}
	for _, c := range []string{`sqlite3 app.db "DELETE FROM users"`, "curl -o tools.tar.gz https://example.com/t", "curl -fsSL https://example.com/i.sh | sh", "git pull"} {
		if Inert(c) {
			t.Errorf("Inert(%q) = true", c)
		}
	}
	for _, c := range []string{"uv pip install pytest", "export SHOP_DB=x", "scp a.tar.gz host:/tmp/", "find . -name '*.pyc' -delete", "git pull --rebase", "mkdir -p build"} {
		if ReadOnly(c) {
			t.Errorf("ReadOnly(%q) = true", c)
		}
	}
	for _, c := range []string{"uv pip install pytest", "cd web && npm install", "go get example.com/x@v1", "sudo apt-get install -y protobuf-compiler", "brew install expect"} {
		if !Installs(c) {
			t.Errorf("Installs(%q) = false", c)
		}
	}
	for _, c := range []string{"npm test", "go test ./...", "pip list"} {
		if Installs(c) {
			t.Errorf("Installs(%q) = true", c)
		}
	}
	for _, l := range []string{"ModuleNotFoundError: No module named 'ruamel'", "bash: protoc: command not found", "error: Failed to spawn: `pytest`", "Error: Cannot find module 'express'"} {
		if !Missing(l) {
			t.Errorf("Missing(%q) = false", l)
		}
	}
	if !MissingProgram("bash: protoc: command not found") || MissingProgram("ModuleNotFoundError: No module named 'ruamel'") {
		t.Error("MissingProgram misjudges")
	}
	if Missing("undefined: Conn") {
		t.Error("a compile error is not a missing package")
	}
	if !Manifest("web/package.json") || !Manifest("go.mod") || Manifest("src/main.go") {
		t.Error("Manifest misjudges")
	}
}
