package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/conversation"
	"github.com/cairn-dev/cairn/extract"
)

// defaultExtractEvery is how many pending messages trigger an extraction.
const defaultExtractEvery = 5

// runConverse appends chat messages to the project's conversation log in
// the data folder (the database's folder; format in package conversation)
// and extracts memories from them every N messages.
func runConverse(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "converse", "add --role user|assistant|system [flags] TEXT|-")
	var role, sender, chat optString
	every := defaultExtractEvery
	fs.Var(&role, "role", "the message's role: user, assistant or system")
	fs.Var(&sender, "sender", "the `name` of who sent the message")
	fs.Var(&chat, "chat", "the chat `id` (recorded for the month; the session of extracted memories)")
	fs.IntVar(&every, "every", defaultExtractEvery, "extract memories once this many messages are pending")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 || pos[0] != "add" {
		return usagef("converse: the only action is add (see `cairn help converse`)")
	}
	pos = pos[1:]
	if !conversation.ValidRole(role.v) {
		return usagef("converse add: --role must be user, assistant or system")
	}
	if every < 1 {
		return usagef("converse add: --every must be at least 1")
	}
	if len(pos) == 0 {
		return usagef("converse add: give the message text, or - to read it from standard input")
	}
	text, err := m.readContent(ctx, pos)
	if err != nil {
		return err
	}
	if strings.TrimSpace(text) == "" {
		return usagef("converse add: the message is empty")
	}
	if err := g.resolve(m); err != nil {
		return err
	}
	now, err := g.nowClock()
	if err != nil {
		return err
	}
	log := &conversation.Log{Dir: filepath.Dir(g.path()), Project: g.project}
	msg := conversation.Message{Role: role.v, Content: redactSecrets(text), SenderName: sender.v, Timestamp: now()}
	var chatID *string
	if chat.set {
		chatID = &chat.v
	}
	turn, err := log.Add(msg, chatID)
	if err != nil {
		return err
	}
	file := turn.File
	for _, p := range turn.Batch.Problems {
		fmt.Fprintf(m.Stderr, "cairn: %s %s; skipped\n", file, p)
	}
	pending := len(turn.Batch.Messages)
	if !turn.Due(every) {
		fmt.Fprintf(m.Stdout, "appended to %s; %d pending (extracting at %d)\n", file, pending, every)
		return nil
	}

	var model conversation.Model
	if cfg, ok := extract.ConfigFromEnv(m.Getenv); ok {
		budget := &extract.FileBudget{Path: filepath.Join(filepath.Dir(g.path()), "model-budget.json")}
		client := extract.New(cfg, budget, nil, now)
		model = func(ctx context.Context, text string) ([]*cairn.Memory, error) {
			got, _, err := client.Extract(ctx, text)
			return got, err
		}
	}
	var x *conversation.Extraction
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		var err error
		x, err = turn.Extract(ctx, svc, g.project, chat.v, model)
		return err
	})
	if err != nil {
		return err
	}
	if x.ModelErr != nil {
		fmt.Fprintf(m.Stderr, "cairn: model extraction failed: %s; the messages stay pending and are retried next time\n", oneLine(cairn.ErrorMessage(x.ModelErr)))
	}
	for _, s := range x.Stored {
		if s.Err != nil {
			fmt.Fprintf(m.Stderr, "cairn: cannot store the %s %q: %s\n", s.Memory.Type, s.Memory.Title, oneLine(cairn.ErrorMessage(s.Err)))
			continue
		}
		fmt.Fprintf(m.Stdout, "%s %s %s: %s\n", s.Result.Status, s.Result.Memory.ID, s.Result.Memory.Type, s.Result.Memory.Title)
	}
	switch {
	case x.Failed > 0:
		fmt.Fprintf(m.Stderr, "cairn: %d of %d memories could not be stored; the messages stay pending\n", x.Failed, len(x.Stored))
		return exitError(exitFailure)
	case x.Pending:
		fmt.Fprintf(m.Stdout, "stored %s from %s without the model; %d pending\n", memories(len(x.Stored)), file, pending)
		return nil
	}
	fmt.Fprintf(m.Stdout, "extracted %d messages of %s: %s (%d new, %d reinforced, %d updated, %d unchanged); 0 pending\n",
		pending, file, memories(len(x.Stored)), x.Counts[cairn.StatusCreated], x.Counts[cairn.StatusReinforced],
		x.Counts[cairn.StatusUpdated], x.Counts[cairn.StatusUnchanged])
	return nil
}
