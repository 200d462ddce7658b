package main

// `cairn token`: the access tokens of the HTTP API (package httpapi). A
// token opens one project, read-only or not; its secret is printed once,
// at creation, and only its SHA-256 hash is stored.
//
// It runs on the surface as every command does (service.go), but a
// server answers tokens only on its Unix socket, which only the
// database's owner can open: a server reached over HTTP refuses them
// (403), so that no token holder mints tokens; minting one takes the
// database file, or its owner's socket.

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runToken(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "token", "create [--read-only] [--name N] | list | revoke ID")
	readOnly := fs.Bool("read-only", false, "create: the token may only read (search, get, list, context, export …)")
	name := fs.String("name", "", "create: a `label` to tell the token apart, e.g. ci or laptop")
	asJSON := fs.Bool("json", false, "print as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("token: say create, list or revoke ID")
	}
	switch verb, rest := pos[0], pos[1:]; {
	case verb == "create" && len(rest) == 0:
		var secret string
		var tok *cairn.Token
		err := m.withService(ctx, g, writeDB, func(svc cairn.App) (err error) {
			secret, tok, err = svc.CreateToken(ctx, g.project, *name, *readOnly)
			return err
		})
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(m.Stdout, wire.NewToken{Token: wire.TokenOf(tok), Secret: secret})
		}
		access := "read and write"
		if tok.ReadOnly {
			access = "read-only"
		}
		fmt.Fprintln(m.Stdout, secret)
		fmt.Fprintf(m.Stderr, "cairn: token %s for project %s (%s); it is shown only now: send it as Authorization: Bearer TOKEN\n", tok.ID, tok.Project, access)
		return nil
	case verb == "list" && len(rest) == 0:
		var toks []*cairn.Token
		err := m.withService(ctx, g, readDB, func(svc cairn.App) (err error) {
			toks, err = svc.FindTokens(ctx)
			return err
		})
		if err != nil && !errIsNoDatabase(err) {
			return err
		}
		if *asJSON {
			out := make([]wire.Token, 0, len(toks))
			for _, t := range toks {
				out = append(out, wire.TokenOf(t))
			}
			return writeJSON(m.Stdout, out)
		}
		if len(toks) == 0 {
			fmt.Fprintln(m.Stderr, "cairn: no tokens; `cairn token create --project NAME` makes one")
			return nil
		}
		tw := tabwriter.NewWriter(m.Stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tPROJECT\tACCESS\tNAME\tCREATED")
		for _, t := range toks {
			access := "write"
			if t.ReadOnly {
				access = "read-only"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.ID, t.Project, access, t.Name, wire.FormatTime(t.CreatedAt))
		}
		return tw.Flush()
	case verb == "revoke" && len(rest) == 1:
		err := m.withService(ctx, g, writeDB, func(svc cairn.App) error { return svc.RevokeToken(ctx, rest[0]) })
		if err != nil {
			return err
		}
		fmt.Fprintf(m.Stdout, "revoked %s\n", rest[0])
		return nil
	case verb == "revoke":
		return usagef("token revoke: give one token id (cairn token list shows them)")
	case verb == "create" || verb == "list":
		return usagef("token %s: unexpected argument %q", verb, rest[0])
	}
	return usagef("token: unknown action %q (create, list or revoke ID)", pos[0])
}
