package main

// `cairn service install|uninstall`. Bad inputs tried: no verb, an
// unknown verb, a PostgreSQL URL without --db-file (its password would
// go into the file), a system with neither systemd nor launchd.

import (
	"encoding/xml"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn/server"
)

// On Linux, install writes a systemd user unit that runs this cairn's
// serve for the database, with its log beside the database; --dry-run
// prints it and writes nothing; install again changes nothing; uninstall
// removes it, and again has nothing to do.
func TestServiceInstallWritesAndRemovesASystemdUnit(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	cfg := filepath.Join(c.dir, "config")
	c.env["XDG_CONFIG_HOME"] = cfg
	c.env["CAIRN_SERVE_ADDR"] = "127.0.0.1:7499"
	r := c.ok("service", "install", "--dry-run")
	unitDir := filepath.Join(cfg, "systemd", "user")
	if !strings.HasPrefix(r.stdout, "# "+unitDir+"/cairn-") || !strings.Contains(r.stdout, ".service\n") {
		t.Fatalf("dry run: %v", r)
	}
	exe, _ := os.Executable()
	for _, want := range []string{
		"[Unit]\nDescription=cairn serve for " + c.db + "\n",
		"Environment=\"CAIRN_SERVE_ADDR=127.0.0.1:7499\"\n",
		fmt.Sprintf("ExecStart=%q \"--db\" %q \"--project\" \"proj\" \"serve\" \"--log\" %q\n", exe, c.db, filepath.Join(c.dir, "cairn.log")),
		"Restart=on-failure\n",
		"[Install]\nWantedBy=default.target\n",
	} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("the unit lacks %q:\n%s", want, r.stdout)
		}
	}
	if _, err := os.Stat(unitDir); err == nil {
		t.Fatal("--dry-run wrote the unit")
	}
	r = c.ok("service", "install", "--no-start")
	files, _ := filepath.Glob(filepath.Join(unitDir, "cairn-*.service"))
	if len(files) != 1 || !strings.Contains(r.stdout, files[0]+": written\n") || !strings.Contains(r.stdout, "systemctl --user enable --now "+filepath.Base(files[0])) {
		t.Fatalf("install: %v, files %v", r, files)
	}
	b, _ := os.ReadFile(files[0])
	if dry := c.ok("service", "install", "--dry-run"); "# "+files[0]+"\n"+string(b) != dry.stdout {
		t.Errorf("the file written is not the one the dry run printed:\n%s", b)
	}
	if r := c.ok("service", "install", "--no-start"); !strings.Contains(r.stdout, ": unchanged\n") {
		t.Errorf("second install: %v", r)
	}
	if r := c.ok("service", "uninstall", "--dry-run"); !strings.Contains(r.stdout, "would be stopped and removed") {
		t.Errorf("uninstall --dry-run: %v", r)
	}
	if r := c.ok("service", "uninstall", "--no-start"); !strings.Contains(r.stdout, files[0]+": removed\n") {
		t.Errorf("uninstall: %v", r)
	}
	if _, err := os.Stat(files[0]); err == nil {
		t.Error("uninstall left the unit")
	}
	if r := c.ok("service", "uninstall", "--no-start"); !strings.Contains(r.stdout, "not there, nothing to do") {
		t.Errorf("second uninstall: %v", r)
	}
	for _, args := range [][]string{{"service"}, {"service", "restart"}} {
		if r := c.run("", args...); r.code != 2 {
			t.Errorf("%v: %v", args, r)
		}
	}
	if r := c.raw("", "--db", "postgres://u:secret@127.0.0.1/db", "service", "install", "--dry-run"); r.code != 2 || strings.Contains(r.stdout+r.stderr, "secret") {
		t.Errorf("a PostgreSQL URL: %v", r)
	}
}

// On macOS the service is a launch agent: a well-formed property list
// that runs serve with its output in the log beside the database.
func TestServiceOnMacOSIsALaunchAgent(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	g := &globals{db: filepath.Join(c.dir, "a & b.db"), project: "proj"}
	m := &Main{Getenv: func(k string) string { return c.env[k] }, Getwd: func() (string, error) { return c.dir, nil }}
	u, err := m.serviceUnit(g, "darwin")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(u.path, filepath.Join(c.dir, "Library", "LaunchAgents", "dev.cairn.serve-")) || !strings.HasSuffix(u.path, ".plist") {
		t.Errorf("path %s", u.path)
	}
	var plist struct {
		Dict struct {
			Inner []byte `xml:",innerxml"`
		} `xml:"dict"`
	}
	if err := xml.Unmarshal([]byte(u.text), &plist); err != nil {
		t.Fatalf("not XML: %v\n%s", err, u.text)
	}
	for _, want := range []string{"<string>" + filepath.Join(c.dir, "a &amp; b.db") + "</string>", "<string>serve</string>",
		"<key>StandardErrorPath</key>\n\t<string>" + filepath.Join(c.dir, "cairn.log") + "</string>", "<key>RunAtLoad</key>"} {
		if !strings.Contains(u.text, want) {
			t.Errorf("the plist lacks %q:\n%s", want, u.text)
		}
	}
	if _, err := m.serviceUnit(g, "windows"); err == nil || !strings.Contains(err.Error(), "systemd (Linux) and launchd (macOS)") {
		t.Errorf("windows: %v", err)
	}
}

// Where systemd runs the user's services, the unit starts the server:
// serve status finds it, with its log where the unit says; uninstall
// stops it.
func TestBinaryServiceStartsTheServerThroughSystemd(t *testing.T) {
	needBinary(t)
	if out, err := exec.Command("systemctl", "--user", "show-environment").CombinedOutput(); err != nil {
		t.Skipf("systemctl --user does not work here (%v: %s): the unit file is tested, starting it is not", err, strings.TrimSpace(string(out)))
	}
	t.Parallel()
	ctx := t.Context()
	dir := t.TempDir()
	db := filepath.Join(dir, "cairn.db")
	home, _ := os.UserHomeDir() // systemd reads the real user's units
	cairn := func(args ...string) result {
		cmd := exec.CommandContext(ctx, cairnBin, append([]string{"--db", db, "--project", "svc"}, args...)...)
		cmd.Env = []string{"PATH=" + os.Getenv("PATH"), "HOME=" + home, "CAIRN_SERVE_ADDR=" + freeLoopbackAddr(t),
			"XDG_RUNTIME_DIR=" + os.Getenv("XDG_RUNTIME_DIR"), "DBUS_SESSION_BUS_ADDRESS=" + os.Getenv("DBUS_SESSION_BUS_ADDRESS")}
		out, err := cmd.CombinedOutput()
		code := 0
		if err != nil {
			code = 1
		}
		return result{args: args, code: code, stdout: string(out)}
	}
	if r := cairn("add", "a memory for the service's server"); r.code != 0 {
		t.Fatal(r)
	}
	if r := cairn("service", "install"); r.code != 0 {
		t.Fatalf("%v", r)
	}
	t.Cleanup(func() { cairn("service", "uninstall") })
	for deadline := time.Now().Add(20 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		st, err := server.StatusOf(ctx, db, db)
		if err == nil {
			if st.Log != filepath.Join(dir, "cairn.log") || st.URL == "" {
				t.Errorf("status: %+v", st)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the service's server never answered: %v", err)
		}
	}
	if r := cairn("service", "uninstall"); r.code != 0 || !strings.Contains(r.stdout, ": removed") {
		t.Fatalf("%v", r)
	}
	for deadline := time.Now().Add(20 * time.Second); server.Answers(db, time.Second); time.Sleep(50 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the server still answers after uninstall")
		}
	}
}
