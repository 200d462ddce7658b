package config

import (
	"os"
	"sync"
	"syscall"
	"time"
)

// Cache keeps the configurations a long-lived process (a server) has
// read, by folder pair, with the state of their files: they are read
// again only when a file appeared, disappeared or changed. The zero
// value is empty and ready; it is safe for concurrent use.
type Cache struct {
	mu      sync.Mutex
	entries map[[2]string]cacheEntry
}

type cacheEntry struct {
	stamps [2]Stamp
	loaded *Loaded
}

// Stamp is what tells a changed file: its size, time and inode. Two
// stamps of a file are equal while it has not changed.
type Stamp struct {
	Exists bool
	Size   int64
	MTime  time.Time
	Ino    uint64
}

// StampOf is the stamp of the file at path; the zero Stamp when it
// cannot be read (it does not exist).
func StampOf(path string) Stamp {
	fi, err := os.Stat(path)
	if err != nil {
		return Stamp{}
	}
	st := Stamp{Exists: true, Size: fi.Size(), MTime: fi.ModTime()}
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.Ino = sys.Ino
	}
	return st
}

// maxCachedConfigs bounds the cache; beyond it, a new pair is read every
// time.
const maxCachedConfigs = 256

// Load returns the configuration (Effective) of the two folders, from the cache when
// their files are unchanged. The result is the caller's to change: its
// Config is a copy.
func (c *Cache) Load(projectDir, userDir string) (*Loaded, error) {
	key := [2]string{projectDir, userDir}
	var stamps [2]Stamp
	if userDir != "" {
		stamps[0] = StampOf(UserFile(userDir))
	}
	if projectDir != "" {
		stamps[1] = StampOf(ProjectFile(projectDir))
	}
	c.mu.Lock()
	e, ok := c.entries[key]
	c.mu.Unlock()
	if !ok || e.stamps != stamps {
		l, err := Effective(projectDir, userDir)
		if err != nil {
			return nil, err
		}
		e = cacheEntry{stamps: stamps, loaded: l}
		c.mu.Lock()
		if c.entries == nil {
			c.entries = map[[2]string]cacheEntry{}
		}
		if len(c.entries) < maxCachedConfigs || ok {
			c.entries[key] = e
		}
		c.mu.Unlock()
	}
	l := *e.loaded
	l.Config = e.loaded.Config.Clone()
	return &l, nil
}
