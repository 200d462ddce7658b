package engine

import (
	"context"
	"encoding/json"
	"sync"

	"github.com/cairn-dev/cairn"
)

// A project's settings are stored per project (cairn.SettingsTx) by the
// command that owns the project's folder, and every rule of a write reads
// them: the type policies (time to live, initial confidence, tier) in
// force for a memory are those of its project's stored settings, else the
// engine's own (Options.Policies). So a `cairn add` answered by a server
// started in another folder, the MCP remember tool and a one-shot command
// give a memory the same expiry.

var _ cairn.SettingsService = (*Engine)(nil)

// settingsCache keeps the settings decoded from each project's stored
// document, so that a write reads the row (a key lookup) but decodes a
// document only when it changed. Shared by the engines derived from one.
type settingsCache struct {
	mu sync.Mutex
	m  map[string]decodedSettings // by project
}

type decodedSettings struct {
	doc      string
	settings *cairn.Settings
	policies cairn.Policies
}

// maxCachedSettings bounds the projects whose settings are kept decoded;
// the cache starts over when full.
const maxCachedSettings = 256

// decode returns the settings of st, decoded once per document. The
// settings returned are shared: callers must not change them.
func (c *settingsCache) decode(st *cairn.StoredSettings) (decodedSettings, error) {
	c.mu.Lock()
	d, ok := c.m[st.Project]
	c.mu.Unlock()
	if ok && d.doc == st.Document {
		return d, nil
	}
	// Keys the document lacks (settings a later version added) keep
	// their defaults.
	s := cairn.DefaultSettings()
	if err := json.Unmarshal([]byte(st.Document), s); err != nil {
		return decodedSettings{}, cairn.WrapError(cairn.EINTERNAL, err,
			"the stored settings of project %s cannot be read; run any cairn command in the project's folder to write them again", st.Project)
	}
	d = decodedSettings{doc: st.Document, settings: s, policies: s.Policies()}
	c.mu.Lock()
	if c.m == nil || len(c.m) >= maxCachedSettings {
		c.m = map[string]decodedSettings{}
	}
	c.m[st.Project] = d
	c.mu.Unlock()
	return d, nil
}

// settingsIn reads project's stored settings within tx; ok is false when
// none are stored.
func (e *Engine) settingsIn(ctx context.Context, tx cairn.Tx, project string) (d decodedSettings, st *cairn.StoredSettings, ok bool, err error) {
	st, err = tx.FindProjectSettings(ctx, project)
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return decodedSettings{}, nil, false, nil
	}
	if err != nil {
		return decodedSettings{}, nil, false, err
	}
	d, err = e.settings.decode(st)
	return d, st, err == nil, err
}

// inProjectTx returns an engine that shares e's store, settings and
// caches but applies project's type policies, read within tx: its stored
// settings', else e's own.
func (e *Engine) inProjectTx(ctx context.Context, tx cairn.Tx, project string) (*Engine, error) {
	if project == "" {
		return e, nil
	}
	d, _, ok, err := e.settingsIn(ctx, tx, project)
	if err != nil || !ok {
		return e, err
	}
	c := *e
	c.policies = d.policies
	return &c, nil
}

// inProject is inProjectTx in a transaction of its own.
func (e *Engine) inProject(ctx context.Context, project string) (*Engine, error) {
	if project == "" {
		return e, nil
	}
	out := e
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		var err error
		out, err = e.inProjectTx(ctx, tx, project)
		return err
	})
	return out, err
}

// SettingsOf returns the settings in force for project: its stored ones,
// else the engine's own (Options.Settings). They are shared: the caller
// clones them to change them.
func (e *Engine) SettingsOf(ctx context.Context, project string) (*cairn.Settings, error) {
	if project == "" {
		return e.own, nil
	}
	out := e.own
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		d, _, ok, err := e.settingsIn(ctx, tx, project)
		if ok {
			out = d.settings
		}
		return err
	})
	return out, err
}

// ProjectSettings implements cairn.SettingsService: the settings stored for
// project, or ENOTFOUND when none are. The Settings returned are the
// caller's to change.
func (e *Engine) ProjectSettings(ctx context.Context, project string) (*cairn.ProjectSettings, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	var out *cairn.ProjectSettings
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		d, st, ok, err := e.settingsIn(ctx, tx, project)
		if err != nil {
			return err
		}
		if !ok {
			return cairn.Errorf(cairn.ENOTFOUND, "project %s has no stored settings", project)
		}
		out = &cairn.ProjectSettings{Settings: d.settings.Clone(), Source: st.Source, Fingerprint: st.Fingerprint,
			Folder: st.Folder, UpdatedAt: st.UpdatedAt}
		return nil
	})
	return out, err
}

// SetProjectSettings implements cairn.SettingsService: it stores ps as
// project's settings, at the engine's clock. The settings are stored as
// given: checking their values is the caller's (package config checks a
// file's). EINVALID for a bad project or nil settings.
func (e *Engine) SetProjectSettings(ctx context.Context, project string, ps *cairn.ProjectSettings) error {
	if !cairn.ValidProject(project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	if ps == nil || ps.Settings == nil {
		return cairn.Errorf(cairn.EINVALID, "no settings to store for project %s", project)
	}
	doc, err := json.Marshal(ps.Settings)
	if err != nil {
		return cairn.WrapError(cairn.EINTERNAL, err, "cannot encode the settings")
	}
	st := cairn.StoredSettings{Project: project, Document: string(doc), Source: e.redact(ps.Source),
		Fingerprint: ps.Fingerprint, Folder: ps.Folder, UpdatedAt: e.Now()}
	return e.store.Update(ctx, func(tx cairn.Tx) error { return tx.PutProjectSettings(ctx, st) })
}

// DeleteProjectSettings implements cairn.SettingsService: project's
// settings are no longer stored, and the engine's own apply to it again.
func (e *Engine) DeleteProjectSettings(ctx context.Context, project string) error {
	if !cairn.ValidProject(project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	return e.store.Update(ctx, func(tx cairn.Tx) error { return tx.DeleteProjectSettings(ctx, project) })
}
