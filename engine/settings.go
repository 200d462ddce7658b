package engine

import (
	"context"
	"encoding/json"
	"sync"
	"time"

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
	// found are SettingsOf's answers by project, kept by a long-lived
	// engine (one with a cache) for settingsReuse: every hook call reads
	// its project's settings, and a read transaction for them cost about
	// a twentieth of the call.
	found map[string]foundSettings
	// gen counts the settings written or deleted through the engines
	// sharing the cache: an answer read before one is not kept (written
	// empties found).
	gen uint64
}

// foundSettings is a project's settings as SettingsOf read them: nil
// when none are stored.
type foundSettings struct {
	settings *cairn.Settings
	at       time.Time
}

// settingsReuse is how long SettingsOf reuses a project's settings read
// before, while none were written through the engine: those another
// process writes to the database directly take effect that much later
// (a command run while a server answers stores them through the server).
const settingsReuse = time.Second

// kept returns the settings kept for project, and whether some are.
func (c *settingsCache) kept(project string) (*cairn.Settings, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	f, ok := c.found[project]
	if !ok || time.Since(f.at) >= settingsReuse {
		return nil, false
	}
	return f.settings, true
}

// generation returns the count of settings writes so far.
func (c *settingsCache) generation() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gen
}

// keep keeps s (nil: none stored) as project's settings, read after
// generation gen began.
func (c *settingsCache) keep(project string, s *cairn.Settings, gen uint64, at time.Time) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return // written since: s may be stale already
	}
	if c.found == nil || len(c.found) >= maxCachedSettings {
		c.found = map[string]foundSettings{}
	}
	c.found[project] = foundSettings{settings: s, at: at}
}

// written says that settings were written or deleted: no answer kept
// before is used again.
func (c *settingsCache) written() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	c.found = nil
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
// clones them to change them. A long-lived engine (Options.CacheBytes)
// reuses what it read for up to a second: settings stored or deleted
// through it (or an engine derived from it) are in force from the next
// call, those another process writes to the database directly within
// that second.
func (e *Engine) SettingsOf(ctx context.Context, project string) (*cairn.Settings, error) {
	if project == "" {
		return e.own, nil
	}
	var gen uint64
	if e.cache != nil {
		if s, ok := e.settings.kept(project); ok {
			if s == nil {
				return e.own, nil
			}
			return s, nil
		}
		gen = e.settings.generation()
	}
	at := time.Now()
	var stored *cairn.Settings
	err := e.store.View(ctx, func(tx cairn.Tx) error {
		d, _, ok, err := e.settingsIn(ctx, tx, project)
		if ok {
			stored = d.settings
		}
		return err
	})
	if err != nil {
		return e.own, err
	}
	if e.cache != nil {
		e.settings.keep(project, stored, gen, at)
	}
	if stored == nil {
		return e.own, nil
	}
	return stored, nil
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
	defer e.settings.written()
	return e.store.Update(ctx, func(tx cairn.Tx) error { return tx.PutProjectSettings(ctx, st) })
}

// DeleteProjectSettings implements cairn.SettingsService: project's
// settings are no longer stored, and the engine's own apply to it again.
func (e *Engine) DeleteProjectSettings(ctx context.Context, project string) error {
	if !cairn.ValidProject(project) {
		return cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	defer e.settings.written()
	return e.store.Update(ctx, func(tx cairn.Tx) error { return tx.DeleteProjectSettings(ctx, project) })
}
