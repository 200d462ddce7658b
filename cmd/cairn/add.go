package main

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runAdd(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "add", "[flags] CONTENT|-")
	var (
		typ, title, key, scope, session, task, hat, agent, source optString
		supersedes                                                optString
		tags, files                                               listFlag
		pin, asJSON, newType                                      bool
	)
	fs.Var(&typ, "type", "the memory `type` (default note; see `cairn types`)")
	fs.Var(&title, "title", "a short `title` (default: the first sentence)")
	fs.Var(&tags, "tags", "comma-separated `tags`, e.g. testing,agent:claude")
	fs.Var(&tags, "tag", "the same as --tags")
	fs.Var(&files, "files", "comma-separated file `globs` the memory is about")
	fs.Var(&key, "key", "a `key`: adding the same type and key again updates the memory")
	var conf confidenceFlag
	fs.Var(&conf, "confidence", "initial confidence from 0 to 1 (default by type and source)")
	fs.Var(&scope, "scope", "project or global (default project)")
	fs.Var(&session, "session", "the agent session `id` that learned it")
	fs.Var(&task, "task", "the task `id` it came from")
	fs.Var(&hat, "hat", "the agent role (hat) that learned it, e.g. explorer, critic")
	fs.Var(&agent, "agent", "the agent that learned it, e.g. claude")
	fs.Var(&source, "source", "explicit, automatic, extracted or imported (default explicit)")
	fs.BoolVar(&pin, "pin", false, "always inject this memory into context")
	fs.Var(&supersedes, "supersedes", "the `id` of a memory this one replaces (it stays searchable but is no longer injected)")
	fs.BoolVar(&asJSON, "json", false, "print the stored memory and what happened as JSON")
	fs.BoolVar(&newType, "new-type", false, "store --type as a new type even when it is one letter away from a known one")
	var ttl, contentFlag optString
	fs.Var(&ttl, "ttl", "forget the memory after this `duration` (36h, 90m, 7d, 2w) instead of its type's time to live")
	fs.Var(&contentFlag, "content", "the `text` to remember (seed 000's form; the same as giving it as the argument)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if contentFlag.set {
		if len(pos) > 0 {
			return usagef("add: give the content either as --content or as the argument, not both")
		}
		pos = []string{contentFlag.v}
	}
	if len(pos) == 0 {
		return usagef("add: give the content to remember, or - to read it from standard input")
	}
	var ttlDur time.Duration
	if ttl.set {
		if ttlDur, err = wire.ParseDuration(ttl.v); err != nil {
			return usagef("add: --ttl: %v", err)
		}
	}
	if err := checkScope("add", scope); err != nil {
		return err
	}
	if typ.set {
		if err := checkTypeNames("add", typ.v); err != nil {
			return err
		}
	}
	content, err := m.readContent(ctx, pos)
	if err != nil {
		return err
	}
	mem := &cairn.Memory{
		Project: g.project, Type: typ.v, Title: title.v, Content: content, Tags: tags.vals,
		FileRefs: files.vals, Key: key.v, Confidence: conf.v, Scope: cairn.Scope(scope.v),
		SessionID: session.v, TaskID: task.v, Hat: hat.v, Agent: agent.v,
		Source: cairn.Source(source.v), Pinned: pin,
	}
	var res *cairn.WriteResult
	var replaced *cairn.Memory
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		mem.Project = g.project // resolved by now
		if ttl.set {
			mem.ExpiresAt = svc.Now().Add(ttlDur)
		}
		if err := checkNewType(ctx, svc, g, "add", typ, newType); err != nil {
			return err
		}
		var err error
		if supersedes.set {
			res, replaced, err = svc.AddSuperseding(ctx, mem, supersedes.v)
		} else {
			res, err = svc.AddMemory(ctx, mem)
		}
		return err
	})
	if err != nil {
		return err
	}
	if asJSON {
		out := struct {
			Status string `json:"status"`
			*wire.Memory
			Supersedes []string `json:"supersedes,omitempty"`
		}{Status: res.Status, Memory: wire.FromMemory(res.Memory)}
		if replaced != nil {
			out.Supersedes = []string{replaced.ID}
		}
		return writeJSON(m.Stdout, out)
	}
	fmt.Fprintln(m.Stdout, res.Memory.ID)
	if replaced != nil {
		fmt.Fprintf(m.Stderr, "cairn: %s is now superseded by %s\n", replaced.ID, res.Memory.ID)
	}
	switch res.Status {
	case cairn.StatusReinforced:
		fmt.Fprintf(m.Stderr, "cairn: the same content was already stored as %s; reinforced it (use count %d, confidence %s)\n",
			res.Memory.ID, res.Memory.UseCount, strconv.FormatFloat(res.Memory.Confidence, 'f', 2, 64))
	case cairn.StatusUpdated:
		fmt.Fprintf(m.Stderr, "cairn: updated %s, which had the same type and key\n", res.Memory.ID)
	case cairn.StatusUnchanged:
		fmt.Fprintf(m.Stderr, "cairn: %s already holds this; nothing changed\n", res.Memory.ID)
	}
	return nil
}
