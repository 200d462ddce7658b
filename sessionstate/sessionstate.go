// Package sessionstate keeps what one session of an agent leaves for the
// next one to start with, per project, in a small JSON file: seed 004's
// `aide state set memoryDynamicCount N`, which the keyword detector sets
// on a prompt and the session-start hook reads.
//
// The keyword overrides a prompt matched (config.KeywordOverride phrases:
// "full history" → a dynamic count of 10 …) are saved with Keep and
// applied, once, by the next session's start (Take). A file that cannot
// be read is treated as empty: it holds nothing that cannot be lost.
package sessionstate

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"
)

// Override is what a prompt's keywords asked for, for the next session.
type Override struct {
	Keywords []string  `json:"keywords"` // the matched phrases, applied again with config.ApplyKeywords
	Session  string    `json:"session,omitempty"`
	At       time.Time `json:"at"`
}

type file struct {
	Projects map[string]Override `json:"projects"`
}

func load(path string) file {
	var f file
	if b, err := os.ReadFile(path); err == nil {
		_ = json.Unmarshal(b, &f)
	}
	if f.Projects == nil {
		f.Projects = map[string]Override{}
	}
	return f
}

func save(path string, f file) error {
	b, err := json.MarshalIndent(f, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".state-*")
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	if _, err := tmp.Write(append(b, '\n')); err != nil {
		tmp.Close()
		return err
	}
	if err := tmp.Close(); err != nil {
		return err
	}
	return os.Rename(tmp.Name(), path)
}

// Keep saves o for project's next session start, replacing what was
// kept before. The write is atomic (a temporary file renamed).
func Keep(path, project string, o Override) error {
	f := load(path)
	f.Projects[project] = o
	return save(path, f)
}

// Take returns what was kept for project and forgets it; ok is false when
// nothing was.
func Take(path, project string) (o Override, ok bool, err error) {
	f := load(path)
	o, ok = f.Projects[project]
	if !ok {
		return Override{}, false, nil
	}
	delete(f.Projects, project)
	if err := save(path, f); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return o, true, err
	}
	return o, true, nil
}
