package main

import (
	"context"
	"fmt"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func runEdit(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "edit", "ID [flags]")
	var typ, title, content, key, scope, superseded, agent, hat, task, session optString
	var tags, files listFlag
	var expires, verified timeFlag
	fs.Var(&typ, "type", "new `type`")
	fs.Var(&title, "title", "new `title`")
	fs.Var(&content, "content", "new `content` (- reads standard input)")
	fs.Var(&key, "key", "new `key` (empty removes it)")
	fs.Var(&tags, "tags", "replace the tags (comma-separated; \"\" clears them)")
	fs.Var(&files, "files", "replace the file globs (comma-separated)")
	var conf, lower confidenceFlag
	fs.Var(&conf, "confidence", "raise the confidence to this, from 0 to 1 (an edit never lowers it)")
	fs.Var(&lower, "lower-confidence", "lower the confidence to this, from 0 to 1")
	fs.Var(&scope, "scope", "project or global")
	pin := fs.Bool("pin", false, "always inject this memory")
	unpin := fs.Bool("unpin", false, "stop always injecting it")
	fs.Var(&superseded, "superseded-by", "the `id` of the memory that replaces this one (empty clears it)")
	fs.Var(&expires, "expires", "expiry `time` (RFC 3339 or YYYY-MM-DD)")
	fs.Var(&verified, "verified", "when it was last verified (`time`)")
	fs.Var(&agent, "agent", "the agent that learned it")
	fs.Var(&hat, "hat", "the hat that learned it")
	fs.Var(&task, "task", "the task it came from")
	fs.Var(&session, "session", "the session that learned it")
	asJSON := fs.Bool("json", false, "print the changed memory as JSON")
	newType := fs.Bool("new-type", false, "take --type as a new type even when it is one letter away from a known one")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("edit: give one memory id, then the fields to change (see `cairn help edit`)")
	}
	if err := checkScope("edit", scope); err != nil {
		return err
	}
	if typ.set {
		if err := checkTypeNames("edit", typ.v); err != nil {
			return err
		}
	}
	var upd cairn.MemoryUpdate
	str := func(o *optString) *string {
		if !o.set {
			return nil
		}
		return &o.v
	}
	if content.set && content.v == "-" {
		c, err := m.readContent(ctx, []string{"-"})
		if err != nil {
			return err
		}
		content.v = c
	}
	upd.Type, upd.Title, upd.Content, upd.Key = str(&typ), str(&title), str(&content), str(&key)
	upd.SupersededBy, upd.Agent, upd.Hat, upd.TaskID, upd.SessionID = str(&superseded), str(&agent), str(&hat), str(&task), str(&session)
	if tags.set {
		upd.Tags = &tags.vals
	}
	if files.set {
		upd.FileRefs = &files.vals
	}
	switch {
	case conf.set && lower.set:
		return usagef("edit: give --confidence or --lower-confidence, not both")
	case conf.set:
		upd.Confidence = &conf.v
	case lower.set:
		upd.Confidence, upd.LowerConfidence = &lower.v, true
	}
	if scope.set {
		sc := cairn.Scope(scope.v)
		upd.Scope = &sc
	}
	if *pin && *unpin {
		return usagef("edit: give --pin or --unpin, not both")
	}
	if *pin || *unpin {
		p := *pin
		upd.Pinned = &p
	}
	if !expires.t.IsZero() {
		upd.ExpiresAt = &expires.t
	}
	if !verified.t.IsZero() {
		upd.VerifiedAt = &verified.t
	}
	if upd == (cairn.MemoryUpdate{}) {
		return usagef("edit: say what to change, e.g. --content, --title, --tags (see `cairn help edit`)")
	}
	var mem *cairn.Memory
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		if err := checkNewType(ctx, svc, g, "edit", typ, *newType); err != nil {
			return err
		}
		if upd.SupersededBy != nil && *upd.SupersededBy != "" {
			// A prefix names a memory the project can see, as the
			// memory's own id does.
			by, err := svc.FindMemoryByID(ctx, *upd.SupersededBy)
			switch {
			case err == nil:
				upd.SupersededBy = &by.ID
			case cairn.ErrorCode(err) != cairn.ENOTFOUND:
				return err
			}
		}
		var err error
		mem, err = svc.UpdateMemory(ctx, pos[0], upd)
		return err
	})
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, wire.FromMemory(mem))
	}
	fmt.Fprintln(m.Stdout, mem.ID)
	return nil
}

func runRm(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "rm", "ID...")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 {
		return usagef("rm: give the ids of the memories to delete")
	}
	// Every id is looked up first: a mistyped one deletes nothing, and a
	// unique prefix is resolved to the id it names. Each deletion is
	// printed once done.
	return m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		ids := make([]string, len(pos))
		var missing []string
		for i, id := range pos {
			mem, err := svc.FindMemoryByID(ctx, id)
			if cairn.ErrorCode(err) == cairn.ENOTFOUND {
				missing = append(missing, id)
				continue
			}
			if err != nil {
				return err
			}
			ids[i] = mem.ID
		}
		if len(missing) > 0 {
			return cairn.Errorf(cairn.ENOTFOUND, "no memory with id %s in project %s; nothing was deleted", strings.Join(missing, ", "), g.project)
		}
		for _, id := range ids {
			if err := svc.DeleteMemory(ctx, id); err != nil {
				return err
			}
			fmt.Fprintf(m.Stdout, "deleted %s\n", id)
		}
		return nil
	})
}
