package main

import (
	"context"
	"fmt"
	"path/filepath"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/jsonlmirror"
)

// syncJSONL rewrites the per-type JSON Lines files once, after a write a
// command made on the database itself (no server ran to follow it), when
// the configuration names a folder; and registers the folder for the
// mirror of the servers that will follow (registerMirror).
func syncJSONL(ctx context.Context, m *Main, g *globals, eng *engine.Engine) {
	registerMirror(ctx, m, g, eng)
	dir := jsonlDir(m, g)
	if dir == "" {
		return
	}
	mir := &jsonlmirror.Mirror{Eng: eng, Project: g.project, Dir: dir}
	if _, err := mir.Sync(ctx); err != nil {
		fmt.Fprintf(m.Stderr, "cairn: cannot keep the JSON Lines files in %s: %s\n", dir, oneLine(cairn.ErrorMessage(err)))
	}
}

// jsonlSetting is export.jsonl_dir as configured ("" when it is not).
func jsonlSetting(m *Main) string {
	l, err := m.loadConfig()
	if err != nil {
		return ""
	}
	return l.Config.Export.JSONLDir
}

// jsonlDir is the folder of the per-type JSON Lines files (export.jsonl_dir,
// relative to the project's folder), or "" when none is configured.
func jsonlDir(m *Main, g *globals) string {
	dir := jsonlSetting(m)
	if dir == "" {
		return ""
	}
	if !filepath.IsAbs(dir) {
		root := m.projectFolder(g)
		if root == "" {
			if wd, err := m.Getwd(); err == nil {
				root = wd
			}
		}
		dir = filepath.Join(root, dir)
	}
	return dir
}
