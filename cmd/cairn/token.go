package main

// `cairn token`: the access tokens of the HTTP API (package httpapi). A
// token opens one project, read-only or not; its secret is printed once,
// at creation, and only its SHA-256 hash is stored.
//
// It opens the database itself, never through a server (service.go):
// tokens administer who may reach a server, so minting one must take
// access to the database file, not to a server that a token (or
// loopback) opens.

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
		s, err := m.open(ctx, g, false)
		if err != nil {
			return err
		}
		defer s.Close()
		secret, tok, err := s.eng.CreateToken(ctx, g.project, *name, *readOnly)
		if err != nil {
			return err
		}
		if *asJSON {
			return writeJSON(m.Stdout, struct {
				tokenJSON
				Token string `json:"token"`
			}{toTokenJSON(tok), secret})
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
		s, err := m.open(ctx, g, true)
		switch {
		case err == errNoDatabase:
		case err != nil:
			return err
		default:
			defer s.Close()
			if toks, err = s.eng.FindTokens(ctx); err != nil {
				return err
			}
		}
		if *asJSON {
			out := make([]tokenJSON, 0, len(toks))
			for _, t := range toks {
				out = append(out, toTokenJSON(t))
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
		s, err := m.open(ctx, g, false)
		if err != nil {
			return err
		}
		defer s.Close()
		if err := s.eng.RevokeToken(ctx, rest[0]); err != nil {
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

// tokenJSON is a token as `token list --json` prints it: never its secret
// nor its hash.
type tokenJSON struct {
	ID        string    `json:"id"`
	Name      string    `json:"name,omitempty"`
	Project   string    `json:"project"`
	ReadOnly  bool      `json:"read_only"`
	CreatedAt wire.Time `json:"created_at"`
}

func toTokenJSON(t *cairn.Token) tokenJSON {
	return tokenJSON{ID: t.ID, Name: t.Name, Project: t.Project, ReadOnly: t.ReadOnly, CreatedAt: wire.Time(t.CreatedAt)}
}
