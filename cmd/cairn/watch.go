package main

// `cairn watch`: the project's events as they are written, one a line.
//
// watch reads the database itself, through the same subscription as
// `cairn serve`'s event stream (engine.Subscribe: a cheap check of the
// database for commits every 20 ms, then the new activity entries), so it
// sees the writes of every process on the database, whether a server runs
// or not, and whether or not that server serves HTTP (the one a hook
// starts does not). To follow a server on another machine, read its
// stream instead: `cairn watch --server http://HOST:PORT` (or CAIRN_SERVER)
// does, through the client (client.Project.Subscribe); so does
// curl -N http://HOST:PORT/api/projects/P/events.

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/local"
	"github.com/cairn-dev/cairn/wire"
)

func runWatch(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "watch", "[flags]")
	var actions listFlag
	after := fs.Int64("after", -1, "start after the event with this `seq` (0: every event stored; default: from now)")
	fs.Var(&actions, "action", "only these `actions` (comma-separated): "+strings.Join(cairn.Actions(), ", "))
	count := fs.Int("count", 0, "exit after `N` events (0: run until interrupted)")
	asJSON := fs.Bool("json", false, "print each event as one line of JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("watch: unexpected argument %q", pos[0])
	}
	afterSet := false
	fs.Visit(func(f *flag.Flag) { afterSet = afterSet || f.Name == "after" })
	if afterSet && *after < 0 {
		return usagef("watch: --after must be an event's seq, 0 or more")
	}
	if *count < 0 {
		return usagef("watch: --count cannot be negative")
	}
	if err := checkActions("watch", actions.vals); err != nil {
		return err
	}
	sub, closeDB, err := m.subscribe(ctx, g, *after)
	if err != nil {
		return err
	}
	defer closeDB()
	defer sub.Close()
	shown := 0
	for ev := range sub.Events() {
		if len(actions.vals) > 0 && !slices.Contains(actions.vals, ev.Action) {
			continue
		}
		if *asJSON {
			data, err := json.Marshal(wire.FromEvent(ev))
			if err != nil {
				return err
			}
			if _, err := fmt.Fprintf(m.Stdout, "%s\n", data); err != nil {
				return err
			}
		} else if err := printEvent(termSafe(m.Stdout), ev); err != nil {
			return err
		}
		if shown++; *count > 0 && shown >= *count {
			return nil
		}
	}
	if err := sub.Err(); err != nil {
		return err
	}
	// Interrupted (Ctrl-C): the normal end of a watch.
	fmt.Fprintf(m.Stderr, "cairn: watched up to event %d; `cairn watch --after %d` goes on from there\n", sub.Seq(), sub.Seq())
	return nil
}

// subscribe subscribes to g's project after the seq after: through the
// server that --server (CAIRN_SERVER) names, else on the database, which
// is then to be closed with closeDB. Not through the socket's server:
// the database shows every process's writes as well, and a server a hook
// started serves no event stream.
func (m *Main) subscribe(ctx context.Context, g *globals, after int64) (sub cairn.Subscription, closeDB func() error, err error) {
	if err := g.resolve(m); err != nil {
		return nil, nil, err
	}
	if g.server != "" {
		p, _, err := m.server(g)
		if err != nil {
			return nil, nil, err
		}
		m.catchSignals() // Ctrl-C ends the watch, which says where it came to
		s, err := p.Subscribe(ctx, after)
		if err != nil {
			return nil, nil, err
		}
		m.served = true
		return s, func() error { return nil }, nil
	}
	s, err := m.open(ctx, g, false)
	if err != nil {
		return nil, nil, err
	}
	es, err := local.New(s.eng, g.project, nil).Subscribe(ctx, after)
	if err != nil {
		s.Close()
		return nil, nil, err
	}
	return es, s.Close, nil
}

// printEvent prints one event a line: seq, time, action, memory, its type
// and title, the session and a note.
func printEvent(w io.Writer, ev cairn.Event) error {
	what := ev.Title
	if ev.Type != "" {
		what = ev.Type + ": " + ev.Title
	}
	rest := clip(what, 80)
	if ev.SessionID != "" {
		rest += "  [" + ev.SessionID + "]"
	}
	if ev.Detail != "" && ev.Detail != ev.Title {
		rest += "  " + clip(ev.Detail, 60)
	}
	line := fmt.Sprintf("#%-6d %-24s  %-10s  %-20s  %s", ev.Seq, wire.FormatTime(ev.At), ev.Action, ev.MemoryID, rest)
	_, err := fmt.Fprintln(w, strings.TrimRight(line, " "))
	return err
}
