package main

// The service a command calls: the engine over the database file, or the
// client of a server that answers for it (package client). A command
// holds the interface and does not know which it got, so that a command
// answered by `cairn serve` runs the same code as one that opens the
// database itself: every flag reaches the service either way.
//
// A server answers for the database when --server (CAIRN_SERVER) names
// one, or when `cairn serve` listens on the Unix socket next to the
// database file (cairn.db.sock). A named server that cannot be reached is
// an error; the socket's server that does not answer (it stopped, or its
// database file was replaced) is not: the command then opens the
// database itself. CAIRN_NO_SERVER=1 never uses the socket.

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/client"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/mcpserver"
	"github.com/cairn-dev/cairn/server"
)

// `cairn mcp` serves the same surface as the other commands.
var _ mcpserver.Service = cairn.App(nil)

// serverTimeout bounds a request to the socket's server: one that does
// not answer in time (hung, or stopped in a debugger) must not stall an
// agent's prompt.
const serverTimeout = 3 * time.Second

// localSocket is the Unix socket of the local server of g's database (its
// database resolved), "" when CAIRN_NO_SERVER is set or no socket of the
// user's is there.
func (m *Main) localSocket(g *globals) string {
	if m.Getenv("CAIRN_NO_SERVER") != "" {
		return ""
	}
	db, err := filepath.Abs(g.path())
	if err != nil {
		return ""
	}
	sock := server.SocketPath(db)
	if !server.OwnSocket(sock) {
		return ""
	}
	return sock
}

// server returns the client of the server that answers for the database
// of g, bound to g's project at g's clock, or nil when none does. named
// reports that --server or CAIRN_SERVER named it: its failures are the
// command's, not a reason to open the database.
func (m *Main) server(g *globals) (p *client.Project, named bool, err error) {
	if err := g.resolve(m); err != nil {
		return nil, false, err
	}
	target, named := g.server, g.server != ""
	if !named {
		sock := m.localSocket(g)
		if sock == "" {
			return nil, false, nil
		}
		target = "unix:" + sock
	}
	c, err := client.New(target, &client.Options{Token: m.Getenv("CAIRN_TOKEN"), Timeout: serverTimeout})
	if err != nil {
		return nil, named, usagef("--server: %s", cairn.ErrorMessage(err))
	}
	p = c.Project(g.project)
	if g.now != "" {
		now, err := g.clock()
		if err != nil {
			return nil, named, err
		}
		p = p.At(now())
	}
	return p, named, nil
}

// dbAccess is what a command does to the database file when it opens it
// itself.
type dbAccess int

const (
	readDB   dbAccess = iota // reads only
	recordDB                 // reads, and records the use of what it shows: no file is created for that
	writeDB                  // writes; creates the database when there is none
)

// withService runs fn with the surface of g's database: a server's client
// when one answers for it, else the engine opened for access. fn must
// call the surface before it prints anything: when the socket's server
// turns out not to answer, fn runs again on the engine. Without a server,
// readDB and recordDB on a database that does not exist get
// errNoDatabase.
func (m *Main) withService(ctx context.Context, g *globals, access dbAccess, fn func(cairn.App) error) error {
	return m.withBlockService(ctx, g, access, nil, fn)
}

// withBlockService is withService whose context blocks, when this
// process builds them, are built with own (nil: the project's stored
// settings): the settings of the command that owns the project's folder.
// A server builds with the settings written to it.
func (m *Main) withBlockService(ctx context.Context, g *globals, access dbAccess, own *cairn.Settings, fn func(cairn.App) error) error {
	p, named, err := m.server(g)
	if err != nil {
		return err
	}
	if p != nil {
		m.syncSettings(ctx, g, p)
		err := fn(p)
		if named || !client.IsUnavailable(err) {
			m.served = true
			return err
		}
		// The socket's server is gone or does not serve this file now.
	}
	if access == recordDB && !g.remote() {
		if _, err := os.Stat(g.db); errors.Is(err, os.ErrNotExist) {
			return m.noDatabase(g)
		}
	}
	s, err := m.open(ctx, g, access == readDB)
	if err != nil {
		return err
	}
	defer s.Close()
	if access != readDB {
		m.syncSettings(ctx, g, s.eng)
	}
	opts := &local.Options{Settings: own}
	if access != readDB {
		opts.Mirror = mirrorOf(m, g) // no server follows its writes to keep the files
	}
	app := local.New(s.eng, g.project, opts)
	err = fn(app)
	app.Finish(ctx)
	return err
}

// errIsNoDatabase reports whether err says there is no database to read.
func errIsNoDatabase(err error) bool { return errors.Is(err, errNoDatabase) }
