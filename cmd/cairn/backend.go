package main

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgurl"
	"github.com/cairn-dev/cairn/postgres"
	"github.com/cairn-dev/cairn/sqlite"
)

// resolveDB settles which database g names: --db, else the file named by
// --db-file, else CAIRN_DB, else the file named by CAIRN_DB_FILE, else the
// default SQLite file. A postgres:// URL names a PostgreSQL database; any
// other URL is refused rather than taken for a file name.
func (g *globals) resolveDB(m *Main) error {
	if g.db != "" && g.dbFile != "" {
		return usagef("give --db or --db-file, not both")
	}
	if g.db == "" && g.dbFile != "" {
		db, err := readDBFile(g.dbFile, "--db-file")
		if err != nil {
			return err
		}
		// Resolved: a command may resolve its globals more than once.
		g.db, g.dbFile = db, ""
	}
	if g.db == "" {
		g.db = m.Getenv("CAIRN_DB")
	}
	if g.db == "" {
		if f := m.Getenv("CAIRN_DB_FILE"); f != "" {
			db, err := readDBFile(f, "CAIRN_DB_FILE")
			if err != nil {
				return err
			}
			g.db = db
		}
	}
	if g.db == "" || pgurl.IsURL(g.db) {
		dir := m.Getenv("XDG_DATA_HOME")
		if dir == "" {
			home, err := os.UserHomeDir()
			if err != nil {
				return cairn.Errorf(cairn.EINVALID, "cannot find a place for the database: set --db or CAIRN_DB")
			}
			dir = filepath.Join(home, ".local", "share")
		}
		if g.db == "" {
			g.db, g.dbDefault = filepath.Join(dir, "cairn", "cairn.db"), true
			return nil
		}
		sum := sha256.Sum256([]byte(g.db))
		g.local = filepath.Join(dir, "cairn", "pg-"+hex.EncodeToString(sum[:8])+".db")
		return nil
	}
	if isURL(g.db) {
		// Taken as a path, "mysql://…" would quietly create a file
		// named "mysql:" here.
		return usagef("--db %s: only postgres:// (or postgresql://) URLs name a database server; give one, or the path of a SQLite file", redactURL(g.db))
	}
	return nil
}

// readDBFile returns the database named in the file at path: its first
// line that is not empty or a # comment, trimmed, so that a connection
// string with its password stays out of the command line, the
// environment and the shell's history. Messages never quote the file.
func readDBFile(path, from string) (string, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return "", cairn.Errorf(cairn.EINVALID, "%s: cannot read the database file: %v", from, err)
	}
	for _, line := range strings.Split(string(b), "\n") {
		line = strings.TrimSpace(line)
		if line != "" && !strings.HasPrefix(line, "#") {
			return line, nil
		}
	}
	return "", cairn.Errorf(cairn.EINVALID, "%s: the database file %s names no database (want a postgres:// URL or a path on its first line)", from, path)
}

// remote reports whether g names a PostgreSQL database.
func (g *globals) remote() bool { return pgurl.IsURL(g.db) }

// path is the local path that stands for the database: the SQLite file,
// or for PostgreSQL a path in the data folder (see globals.local).
func (g *globals) path() string {
	if g.local != "" {
		return g.local
	}
	return g.db
}

// label names the database in messages: a URL without its password.
func (g *globals) label() string {
	if g.remote() {
		return pgurl.Redact(g.db)
	}
	return g.db
}

// openStore opens the database g names. A read-only open of one that has
// no memories yet returns errNoDatabase.
func openStore(ctx context.Context, g *globals, readOnly bool) (cairn.Store, error) {
	if g.remote() {
		// The local folder of a server's socket and lock, logs and the
		// conversation; a failure shows where it is needed.
		os.MkdirAll(filepath.Dir(g.local), 0o700)
		return openPostgres(ctx, g.db, readOnly)
	}
	st, err := sqlite.Open(ctx, g.db, &sqlite.Options{ReadOnly: readOnly})
	if readOnly && errors.Is(err, sqlite.ErrNotInitialized) {
		return nil, errNoDatabase
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}

// openPostgres opens the PostgreSQL database at url (see openStore).
func openPostgres(ctx context.Context, url string, readOnly bool) (cairn.Store, error) {
	st, err := postgres.Open(ctx, url, &postgres.Options{ReadOnly: readOnly})
	if readOnly && errors.Is(err, postgres.ErrNotInitialized) {
		return nil, errNoDatabase
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}
