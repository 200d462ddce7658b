package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/config"
)

func runConfig(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "config", "[--json] [--mode NAME]")
	asJSON := fs.Bool("json", false, "print as JSON")
	mode := fs.String("mode", "", "show the configuration with the `mode` in effect")
	rest, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(rest) > 0 {
		return usagef("config: unexpected argument %q (see `cairn help config`)", rest[0])
	}
	projectDir, userDir, err := m.configDirs()
	if err != nil {
		return err
	}
	l, err := config.Load(projectDir, userDir)
	if err != nil {
		return err
	}
	if *mode != "" {
		if err := l.Set("context.mode", *mode, "flag --mode"); err != nil {
			var ce *config.Error
			if errors.As(err, &ce) {
				return usagef("config: --mode: %s", ce.Problem)
			}
			return err
		}
	}
	db := m.storedSettings(ctx, g)
	if db.Stored != nil && !db.owner && *mode == "" {
		// Another folder's: what is in force for the project is what its
		// owner stored.
		l.Config = db.Stored.Settings
		l.Sources = config.Values(l.Config, "database")
		def := map[string]string{}
		for _, s := range config.Values(config.Default(), "") {
			def[s.Key] = s.Value
		}
		for i, s := range l.Sources {
			if v, ok := def[s.Key]; ok && v == s.Value {
				l.Sources[i].From = "default"
			}
		}
	}
	if *asJSON {
		files := l.Files
		if files == nil {
			files = []string{}
		}
		return writeJSON(m.Stdout, map[string]any{"config": l.Config, "sources": l.Sources, "files": files, "database": db})
	}
	found := func(path string) string {
		for _, f := range l.Files {
			if f == path {
				return path
			}
		}
		return path + " (not found)"
	}
	if userDir == "" {
		fmt.Fprintln(m.Stdout, "# user file:    none (neither XDG_CONFIG_HOME nor HOME is set)")
	} else {
		fmt.Fprintf(m.Stdout, "# user file:    %s\n", found(config.UserFile(userDir)))
	}
	fmt.Fprintf(m.Stdout, "# project file: %s\n", found(config.ProjectFile(projectDir)))
	fmt.Fprintf(m.Stdout, "# database:     %s\n", db.describe(g.project))
	width := 0
	for _, s := range l.Sources {
		if n := len(s.Key) + 3 + len(s.Value); n > width && n <= 60 {
			width = n
		}
	}
	for _, s := range l.Sources {
		from := s.From
		if strings.HasSuffix(s.Key, ".initial_confidence") && s.Value == "0.0" {
			// 0 is "by source", not a confidence of 0.
			from += fmt.Sprintf(": by source (%.1f explicit, %.1f automatic, %.1f extracted, %.1f imported)",
				cairn.InitialConfidence(cairn.TypePolicy{}, cairn.SourceExplicit), cairn.InitialConfidence(cairn.TypePolicy{}, cairn.SourceAutomatic),
				cairn.InitialConfidence(cairn.TypePolicy{}, cairn.SourceExtracted), cairn.InitialConfidence(cairn.TypePolicy{}, cairn.SourceImported))
		}
		fmt.Fprintf(m.Stdout, "%-*s  # %s\n", width, s.Key+" = "+s.Value, from)
	}
	return nil
}

// storedSettings says what the database holds of g's project's
// settings, after this command wrote them when it owns the folder.
func (m *Main) storedSettings(ctx context.Context, g *globals) settingsInDB {
	var out settingsInDB
	out.owner = m.settingsFolder(g) != ""
	err := m.withService(ctx, g, recordDB, func(svc cairn.App) error {
		ps, err := svc.ProjectSettings(ctx, g.project)
		if err == nil {
			out.Stored = ps
		}
		if cairn.ErrorCode(err) == cairn.ENOTFOUND {
			err = nil
		}
		return err
	})
	switch {
	case errIsNoDatabase(err):
		out.Problem = "no database yet"
	case err != nil:
		out.Problem = cairn.ErrorMessage(err)
	}
	return out
}

// settingsInDB is the database's part of `cairn config`.
type settingsInDB struct {
	Stored  *cairn.ProjectSettings `json:"stored"`            // nil: none stored
	Problem string                 `json:"problem,omitempty"` // why the database was not read
	owner   bool                   // this command's folder is the project's: its files are what is stored
}

func (d settingsInDB) describe(project string) string {
	switch {
	case d.Problem != "":
		return "not read (" + d.Problem + ")"
	case d.Stored == nil:
		return "no settings stored for project " + project + " (each process applies its own files')"
	case d.owner:
		return fmt.Sprintf("these settings, stored for project %s at %s: every process that answers for it applies them",
			project, d.Stored.UpdatedAt.Format(time.RFC3339))
	}
	return fmt.Sprintf("the settings stored for project %s at %s from %s, in force for it: shown below, not this folder's files",
		project, d.Stored.UpdatedAt.Format(time.RFC3339), d.Stored.Source)
}

// configDirs returns the folders Load reads: the project's top-level folder
// (the enclosing git work tree's, else the working directory) and the user's
// configuration folder ($XDG_CONFIG_HOME, else $HOME/.config; "" if neither
// is set).
func (m *Main) configDirs() (projectDir, userDir string, err error) {
	wd, err := m.Getwd()
	if err != nil {
		return "", "", cairn.Errorf(cairn.EINVALID, "cannot tell the working directory: %v", err)
	}
	projectDir = m.rootOf(wd)
	userDir = m.Getenv("XDG_CONFIG_HOME")
	if userDir == "" {
		if home := m.Getenv("HOME"); home != "" {
			userDir = filepath.Join(home, ".config")
		}
	}
	return projectDir, userDir, nil
}
