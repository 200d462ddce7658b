package main

// A project's settings live in the database (cairn.SettingsService), so
// that whatever process answers for the project (this command, a `cairn
// serve` started in another folder, `cairn mcp`) applies the same. The
// command that owns the project's folder (any cairn command run in it,
// hooks and serve included) writes them there from the cairn.toml files
// when those changed since it last did: the check costs a few stat calls
// and a read of a small record beside the database, so hooks pay nothing
// for it while the files stay as they are.

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/config"
	"github.com/cairn-dev/cairn/engine"
)

// engineSetup is what an engine of this process is built with, besides its
// store.
type engineSetup struct {
	// settings are the engine's own: those of a project without stored
	// settings (nil: the built-in ones).
	settings *cairn.Settings
	// endpoint holds the [embeddings] section that sets up the
	// embeddings endpoint, a setting of this process; nil: settings'.
	endpoint *cairn.Settings
	// clock: nil reads the machine's.
	clock func() time.Time
	// cacheBytes keeps search postings in memory (a long-lived process).
	cacheBytes int64
}

// newEngine builds every engine of cairn's commands, so that a setting
// takes effect the same way whichever process answers: the one-shot
// command, `cairn mcp` and `cairn serve` differ only in the setup given.
func newEngine(m *Main, g *globals, st cairn.Store, s engineSetup) (*engine.Engine, error) {
	opts := &engine.Options{Now: s.clock, Redact: redactSecrets, CacheBytes: s.cacheBytes, Settings: s.settings}
	if s.endpoint == nil {
		s.endpoint = s.settings
	}
	if s.endpoint != nil {
		if err := vectorOptions(m, g, s.endpoint, opts); err != nil {
			return nil, err
		}
	}
	return engine.New(st, opts), nil
}

// settingsRecordOf is the file beside g's database that records, per
// project, the state of the files whose settings this machine last wrote
// to the database.
func settingsRecordOf(g *globals) string { return g.path() + ".settings.json" }

// settingsFingerprint identifies the settings files of folder and the
// user's as they are now, and the database they were written to (a
// database file made anew needs them again).
func settingsFingerprint(g *globals, folder, userDir string) string {
	stamp := func(path string) string {
		st := config.StampOf(path)
		if !st.Exists {
			return "-"
		}
		return fmt.Sprintf("%d.%d.%d", st.Size, st.MTime.UnixNano(), st.Ino)
	}
	user := "-"
	if userDir != "" {
		user = stamp(config.UserFile(userDir))
	}
	db := g.server
	if db == "" && !g.remote() {
		db = fmt.Sprint(config.StampOf(g.db).Ino)
	}
	return strings.Join([]string{"v1", folder, stamp(config.ProjectFile(folder)), user, db}, "|")
}

// syncSettings writes the settings of g's project to svc's database when
// this command owns the project's folder (its working directory is in
// it) and the files changed since they were last written there. A file
// that cannot be read is left to the command, which reports it as
// before; a failure to store is said (a hook logs it) and tried again by
// the next command.
func (m *Main) syncSettings(ctx context.Context, g *globals, svc cairn.SettingsService) {
	folder := m.settingsFolder(g)
	if folder == "" {
		return
	}
	_, userDir := m.configFolders()
	fp := settingsFingerprint(g, folder, userDir)
	recPath := settingsRecordOf(g)
	rec := readSettingsRecord(recPath)
	if rec[g.project] == fp {
		return
	}
	l, err := config.Effective(folder, userDir)
	if err != nil {
		return
	}
	source := "defaults"
	if len(l.Files) > 0 {
		source = strings.Join(l.Files, ", ")
	}
	err = svc.SetProjectSettings(ctx, g.project, &cairn.ProjectSettings{Settings: l.Config, Source: source, Fingerprint: fp, Folder: m.projectFolder(g)})
	switch code := cairn.ErrorCode(err); {
	case err == nil:
	case code == cairn.EFORBIDDEN:
		// The token may only read: what is stored stays in force, and
		// the next command asks again only when the files change.
	case client.IsUnavailable(err), code == cairn.EUNAUTHORIZED:
		// The socket's server is gone (the command opens the database
		// next), or the token is refused (the command says so).
		return
	default:
		err = fmt.Errorf("the settings of project %s were not stored in the database: %s", g.project, cairn.ErrorMessage(err))
		if m.configFallback != nil {
			m.configFallback(err)
		} else {
			fmt.Fprintf(m.Stderr, "cairn: %s\n", err)
		}
		return
	}
	if rec == nil {
		rec = map[string]string{}
	}
	rec[g.project] = fp
	writeSettingsRecord(recPath, rec)
}

// settingsFolder is the folder whose cairn.toml gives the settings of g's
// project, when this command owns it: the working directory's project
// folder, when it is g's project's (projectFolder) or holds a cairn.toml
// (a command run there with --project applies that file, as it always
// has); else "". A command run in another project's folder without a
// file of its own writes nothing, so that it cannot replace a project's
// settings with the defaults.
func (m *Main) settingsFolder(g *globals) string {
	if f := m.projectFolder(g); f != "" {
		return f
	}
	wd, err := m.Getwd()
	if err != nil || wd == "" {
		return ""
	}
	root := m.rootOf(wd)
	if _, err := os.Stat(config.ProjectFile(root)); err != nil {
		return ""
	}
	return root
}

// readSettingsRecord reads the record at path; nil when there is none or
// it cannot be read (the settings are then written again).
func readSettingsRecord(path string) map[string]string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var rec map[string]string
	if json.Unmarshal(data, &rec) != nil {
		return nil
	}
	return rec
}

// writeSettingsRecord replaces the record at path, whole: two processes
// writing at once leave one's record, and the other's settings are
// written again next time.
func writeSettingsRecord(path string, rec map[string]string) {
	data, err := json.Marshal(rec)
	if err != nil {
		return
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), filepath.Base(path)+".*")
	if err != nil {
		return
	}
	_, werr := tmp.Write(data)
	if cerr := tmp.Close(); werr != nil || cerr != nil || os.Rename(tmp.Name(), path) != nil {
		os.Remove(tmp.Name())
	}
}
