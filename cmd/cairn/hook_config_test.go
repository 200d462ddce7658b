package main

// A configuration file cannot stall or break the hooks.
//
// Bad inputs tried here: 100 KB of nested arrays (quadratic for a naive
// line scanner), invalid TOML, a file over config.MaxFileSize, and a FIFO
// in the configuration file's place (opening one waits for a writer).

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/cairn-dev/cairn/config"
)

func TestHookGoesOnWithDefaultsWhenTheConfigurationCannotBeRead(t *testing.T) {
	t.Parallel()
	nested := "[context]\nbudget = 300\n[x]\ny = " + strings.Repeat("[", 50000) + strings.Repeat("]", 50000) + "\n"
	for name, write := range map[string]func(path string) error{
		"nested arrays": func(p string) error { return os.WriteFile(p, []byte(nested), 0o644) },
		"invalid toml":  func(p string) error { return os.WriteFile(p, []byte("[context\nbudget = = 3\n"), 0o644) },
		"too large": func(p string) error {
			return os.WriteFile(p, []byte("# "+strings.Repeat("x", config.MaxFileSize)+"\n"), 0o644)
		},
		"fifo": func(p string) error { return syscall.Mkfifo(p, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			t.Parallel()
			c := newHookCLI(t)
			c.env["XDG_CONFIG_HOME"] = filepath.Join(c.dir, "config")
			path := filepath.Join(c.dir, "config", "cairn", "cairn.toml")
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := write(path); err != nil {
				t.Fatal(err)
			}
			r := c.hook(c.payload("user-prompt-submit.json"), "user-prompt-submit")
			if r.code != 0 || !strings.Contains(r.stdout, `"additionalContext"`) {
				t.Fatalf("no context with the defaults: %v\nlog: %s", r, c.logText())
			}
			if log := c.logText(); !strings.Contains(log, "configuration not used, the defaults are") {
				t.Errorf("the log does not say the configuration was left out: %q", log)
			}
			// A command a person runs still refuses it, saying why.
			if r := c.run("", "config"); r.code == 0 {
				t.Errorf("cairn config accepted it: %v", r)
			}
		})
	}
}
