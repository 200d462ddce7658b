package conversation

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// MonthState is what _state.json holds for one month.
type MonthState struct {
	ChatID        string `json:"chatId"`
	ExtractedUpTo int    `json:"extractedUpTo"`
	ProjectPath   string `json:"projectPath"`
}

// State maps a month ("YYYY-MM") to its state.
type State map[string]MonthState

// ReadState reads _state.json; a missing file is an empty state.
// Temporary files beside it are ignored.
func (l *Log) ReadState() (State, error) {
	st := State{}
	b, err := os.ReadFile(filepath.Join(l.Path(), StateFile))
	if errors.Is(err, os.ErrNotExist) {
		return st, nil
	}
	if err != nil {
		return nil, err
	}
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("conversation: %s is not valid: %v", StateFile, err)
	}
	if st == nil {
		st = State{}
	}
	return st, nil
}

// WriteState replaces _state.json atomically: it writes a temporary file in
// the same folder, syncs it and renames it over the old one.
func (l *Log) WriteState(st State) error {
	if st == nil {
		st = State{}
	}
	b, err := json.MarshalIndent(st, "", "  ")
	if err != nil {
		return err
	}
	b = append(b, '\n')
	dir := l.Path()
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, "."+StateFile+".tmp-*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	ok := false
	defer func() {
		if !ok {
			os.Remove(tmp)
		}
	}()
	if _, err := f.Write(b); err != nil {
		f.Close()
		return err
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	if err := os.Rename(tmp, filepath.Join(dir, StateFile)); err != nil {
		return err
	}
	ok = true
	return nil
}

// Update reads the state, lets fn change it and writes it back.
func (l *Log) Update(fn func(State) error) error {
	st, err := l.ReadState()
	if err != nil {
		return err
	}
	if err := fn(st); err != nil {
		return err
	}
	return l.WriteState(st)
}
