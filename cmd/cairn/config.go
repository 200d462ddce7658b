package main

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

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
	if *asJSON {
		files := l.Files
		if files == nil {
			files = []string{}
		}
		return writeJSON(m.Stdout, map[string]any{"config": l.Config, "sources": l.Sources, "files": files})
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
