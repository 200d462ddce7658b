package main

import (
	"github.com/cairn-dev/cairn/jsonlmirror"
	"github.com/cairn-dev/cairn/local"
)

// mirrorOf is where the per-type JSON Lines files of g's project go, as
// the configuration's export.jsonl_dir names them (jsonlmirror.Folder,
// from the project's folder else the working directory), for the local
// surface that keeps them (local.Options.Mirror); nil when no folder is
// named and none is the project's.
func mirrorOf(m *Main, g *globals) *local.Mirror {
	setting := ""
	if l, err := m.loadConfig(); err == nil {
		setting = l.Config.Export.JSONLDir
	}
	wd, err := m.Getwd()
	if err != nil {
		wd = ""
	}
	dir, register := jsonlmirror.Folder(setting, m.projectFolder(g), wd)
	if dir == "" && !register {
		return nil
	}
	return &local.Mirror{Dir: dir, Register: register, Log: m.Stderr}
}
