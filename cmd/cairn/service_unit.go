package main

// `cairn service install|uninstall`: a systemd user unit (Linux) or a
// launchd agent (macOS) that keeps `cairn serve` running for a database,
// so that the local server is there before the first hook, and comes
// back after a crash or a reboot. Its messages go to cairn.log beside the
// database, where `cairn serve status` says.

import (
	"bytes"
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"html"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// serviceUnit is one service definition: where it goes and what it says.
type serviceUnit struct {
	kind  string // "systemd" or "launchd"
	name  string // the unit's name (cairn.service) or the agent's label
	path  string // the file
	text  string // its content
	start [][]string
	stop  [][]string
}

func runService(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "service", "install|uninstall [--dry-run] [--no-start]")
	dryRun := fs.Bool("dry-run", false, "print the file (install) or its path (uninstall) and change nothing")
	noStart := fs.Bool("no-start", false, "write or remove the file only: do not ask systemd or launchd to start or stop the server")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 || pos[0] != "install" && pos[0] != "uninstall" {
		return usagef("service: say install or uninstall (see `cairn help service`)")
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	u, err := m.serviceUnit(g, runtime.GOOS)
	if err != nil {
		return err
	}
	if pos[0] == "uninstall" {
		return m.uninstallService(ctx, u, *dryRun, *noStart)
	}
	if *dryRun {
		fmt.Fprintf(m.Stdout, "# %s\n%s", u.path, u.text)
		return nil
	}
	if old, err := os.ReadFile(u.path); err == nil && string(old) == u.text {
		fmt.Fprintf(m.Stdout, "%s: unchanged\n", u.path)
	} else {
		if err := os.MkdirAll(filepath.Dir(u.path), 0o755); err != nil {
			return err
		}
		tmp := u.path + ".tmp"
		if err := os.WriteFile(tmp, []byte(u.text), 0o644); err != nil {
			return err
		}
		if err := os.Rename(tmp, u.path); err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "%s: written\n", u.path)
	}
	if *noStart {
		fmt.Fprintf(m.Stdout, "start it with: %s\n", shellLines(u.start))
		return nil
	}
	if err := runAll(ctx, u.start); err != nil {
		fmt.Fprintf(m.Stderr, "cairn: %s could not start it (%s); start it with: %s\n", u.kind, oneLine(err.Error()), shellLines(u.start))
		return exitError(exitFailure)
	}
	fmt.Fprintf(m.Stdout, "started %s; `cairn serve status` shows it, its log is %s\n", u.name, filepath.Join(filepath.Dir(g.path()), logFileName))
	return nil
}

// uninstallService stops the service (unless noStart) and removes its
// file; nothing to remove is not an error.
func (m *Main) uninstallService(ctx context.Context, u *serviceUnit, dryRun, noStart bool) error {
	if _, err := os.Stat(u.path); errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(m.Stdout, "%s: not there, nothing to do\n", u.path)
		return nil
	}
	if dryRun {
		fmt.Fprintf(m.Stdout, "%s: would be stopped and removed\n", u.path)
		return nil
	}
	if !noStart {
		if err := runAll(ctx, u.stop); err != nil {
			fmt.Fprintf(m.Stderr, "cairn: %s could not stop it (%s); removing the file all the same\n", u.kind, oneLine(err.Error()))
		}
	}
	if err := os.Remove(u.path); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "%s: removed\n", u.path)
	return nil
}

// serviceUnit is the service of g's database on goos: a systemd user
// unit on Linux (and other systems with systemd), a launchd agent on
// macOS. The default database's is named cairn; another's carries a hash
// of its path, so that each database may have its own.
func (m *Main) serviceUnit(g *globals, goos string) (*serviceUnit, error) {
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("cannot tell where this cairn is: %w", err)
	}
	if abs, err := filepath.Abs(exe); err == nil {
		exe = stableExecutable(m, abs)
	}
	dbFlag, db := "--db", g.db
	if g.remote() {
		// The URL holds a password: the unit names the file that holds
		// the URL instead.
		file := cmp.Or(g.dbFile, m.Getenv("CAIRN_DB_FILE"))
		if file == "" {
			return nil, usagef("service: a PostgreSQL URL would be written into the service's file, password and all; put it in a file and give --db-file FILE")
		}
		if dbFlag, db, err = "--db-file", file, nil; !filepath.IsAbs(file) {
			if db, err = filepath.Abs(file); err != nil {
				return nil, err
			}
		}
	} else if db, err = filepath.Abs(g.path()); err != nil {
		return nil, err
	}
	logPath, err := filepath.Abs(filepath.Join(filepath.Dir(g.path()), logFileName))
	if err != nil {
		return nil, err
	}
	suffix := ""
	if !g.dbDefault {
		sum := sha256.Sum256([]byte(db))
		suffix = "-" + hex.EncodeToString(sum[:4])
	}
	// The server runs with what the user's shell would give it: the
	// database, and the variables that change where it listens.
	// Its own project (MCP without ?project=, the web page's) is the
	// one it was installed from.
	argv := []string{exe, dbFlag, db, "--project", g.project, "serve", "--log", logPath}
	var env [][2]string
	for _, k := range []string{"CAIRN_SERVE_ADDR", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		if v := m.Getenv(k); v != "" {
			env = append(env, [2]string{k, v})
		}
	}
	home := m.Getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	switch goos {
	case "darwin":
		label := "dev.cairn.serve" + suffix
		path := filepath.Join(home, "Library", "LaunchAgents", label+".plist")
		return &serviceUnit{kind: "launchd", name: label, path: path, text: launchdPlist(label, argv, env, logPath),
			start: [][]string{{"launchctl", "load", "-w", path}},
			stop:  [][]string{{"launchctl", "unload", "-w", path}}}, nil
	case "linux", "freebsd", "openbsd", "netbsd":
		name := "cairn" + suffix + ".service"
		dir := m.Getenv("XDG_CONFIG_HOME")
		if dir == "" {
			if home == "" {
				return nil, errors.New("cannot tell the user's configuration folder: set HOME or XDG_CONFIG_HOME")
			}
			dir = filepath.Join(home, ".config")
		}
		return &serviceUnit{kind: "systemd", name: name, path: filepath.Join(dir, "systemd", "user", name), text: systemdUnit(db, argv, env),
			start: [][]string{{"systemctl", "--user", "daemon-reload"}, {"systemctl", "--user", "enable", "--now", name}},
			stop:  [][]string{{"systemctl", "--user", "disable", "--now", name}}}, nil
	}
	return nil, fmt.Errorf("cairn service knows systemd (Linux) and launchd (macOS), not %s; run `cairn serve` from your own service manager", goos)
}

// systemdUnit is the text of a user unit running argv, restarted when it
// fails.
func systemdUnit(db string, argv []string, env [][2]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "# Written by `cairn service install`; `cairn service uninstall` removes it.\n")
	fmt.Fprintf(&b, "[Unit]\nDescription=cairn serve for %s\n\n[Service]\nType=simple\n", systemdEscape(db))
	for _, kv := range env {
		fmt.Fprintf(&b, "Environment=%s\n", systemdQuote(kv[0]+"="+kv[1]))
	}
	words := make([]string, len(argv))
	for i, a := range argv {
		words[i] = systemdQuote(a)
	}
	fmt.Fprintf(&b, "ExecStart=%s\nRestart=on-failure\nRestartSec=2\n\n[Install]\nWantedBy=default.target\n", strings.Join(words, " "))
	return b.String()
}

// systemdEscape keeps systemd's specifiers (%) and variables ($) out of a
// value.
func systemdEscape(s string) string {
	return strings.NewReplacer("%", "%%", "$", "$$", "\n", " ").Replace(s)
}

// systemdQuote is one word of a unit's command line or Environment=,
// double-quoted.
func systemdQuote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(systemdEscape(s)) + `"`
}

// launchdPlist is the text of a launch agent running argv at login, kept
// alive, its output appended to logPath.
func launchdPlist(label string, argv []string, env [][2]string, logPath string) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>
<!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
<!-- Written by cairn service install; cairn service uninstall removes it. -->
<plist version="1.0">
<dict>
`)
	fmt.Fprintf(&b, "\t<key>Label</key>\n\t<string>%s</string>\n\t<key>ProgramArguments</key>\n\t<array>\n", html.EscapeString(label))
	for _, a := range argv {
		fmt.Fprintf(&b, "\t\t<string>%s</string>\n", html.EscapeString(a))
	}
	b.WriteString("\t</array>\n")
	if len(env) > 0 {
		b.WriteString("\t<key>EnvironmentVariables</key>\n\t<dict>\n")
		for _, kv := range env {
			fmt.Fprintf(&b, "\t\t<key>%s</key>\n\t\t<string>%s</string>\n", html.EscapeString(kv[0]), html.EscapeString(kv[1]))
		}
		b.WriteString("\t</dict>\n")
	}
	fmt.Fprintf(&b, "\t<key>RunAtLoad</key>\n\t<true/>\n\t<key>KeepAlive</key>\n\t<dict>\n\t\t<key>SuccessfulExit</key>\n\t\t<false/>\n\t</dict>\n")
	fmt.Fprintf(&b, "\t<key>StandardOutPath</key>\n\t<string>%s</string>\n\t<key>StandardErrorPath</key>\n\t<string>%s</string>\n", html.EscapeString(logPath), html.EscapeString(logPath))
	b.WriteString("</dict>\n</plist>\n")
	return b.String()
}

// runAll runs each command in turn; the first that fails is the error,
// with what it said.
func runAll(ctx context.Context, cmds [][]string) error {
	for _, c := range cmds {
		var out bytes.Buffer
		cmd := exec.CommandContext(ctx, c[0], c[1:]...)
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("%s: %v: %s", strings.Join(c, " "), err, strings.TrimSpace(out.String()))
		}
	}
	return nil
}

// shellLines is commands as a person types them, joined by " && ".
func shellLines(cmds [][]string) string {
	var lines []string
	for _, c := range cmds {
		lines = append(lines, strings.Join(c, " "))
	}
	return strings.Join(lines, " && ")
}
