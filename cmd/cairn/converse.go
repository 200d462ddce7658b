package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
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
	s, err := m.open(ctx, g, false)
	if err != nil {
		return err
	}
	defer s.Close()

	log := &conversation.Log{Dir: filepath.Dir(g.path()), Project: g.project}
	if err := log.AdoptLegacy(); err != nil {
		return fmt.Errorf("moving the project's months of the earlier single conversation log: %w", err)
	}
	msg := conversation.Message{Role: role.v, Content: redactSecrets(text), SenderName: sender.v, Timestamp: s.eng.Now()}
	if _, err := log.Append(msg); err != nil {
		return err
	}
	month := conversation.MonthOf(msg.Timestamp)
	file := filepath.ToSlash(filepath.Join("conversations", conversation.FolderName(g.project), month+".jsonl"))
	if err := log.Update(func(st conversation.State) error {
		ms := st[month]
		if chat.set {
			ms.ChatID = chat.v
		}
		if ms.ProjectPath == "" {
			ms.ProjectPath = g.project
		}
		st[month] = ms
		return nil
	}); err != nil {
		return err
	}
	batch, err := log.PendingBatch(month)
	if err != nil {
		return err
	}
	for _, p := range batch.Problems {
		fmt.Fprintf(m.Stderr, "cairn: %s %s; skipped\n", file, p)
	}
	pending := len(batch.Messages)
	if pending < every {
		fmt.Fprintf(m.Stdout, "appended to %s; %d pending (extracting at %d)\n", file, pending, every)
		return nil
	}

	mems := extractMemories(batch.Messages)
	modelFailed := false
	if cfg, ok := extract.ConfigFromEnv(m.Getenv); ok {
		budget := &extract.FileBudget{Path: filepath.Join(filepath.Dir(g.path()), "model-budget.json")}
		client := extract.New(cfg, budget, nil, s.eng.Now)
		got, _, err := client.Extract(ctx, renderMessages(batch.Messages))
		if err != nil {
			if ctx.Err() != nil {
				return ctx.Err()
			}
			// Store nothing from the model and leave the batch pending:
			// the next call retries it (dedup folds the capture memories
			// stored again).
			modelFailed = true
			fmt.Fprintf(m.Stderr, "cairn: model extraction failed: %s; the messages stay pending and are retried next time\n", oneLine(cairn.ErrorMessage(err)))
		} else {
			mems = append(mems, got...)
		}
	}
	st := newStorer(ctx, m, s.eng, false)
	for _, mem := range mems {
		mem.Project = g.project
		if mem.SessionID == "" {
			mem.SessionID = chat.v
		}
		if _, err := st.store(mem, "", fmt.Sprintf("%s %q", mem.Type, mem.Title)); err != nil {
			return err
		}
	}
	counts, failed := st.counts, st.failed
	if failed > 0 {
		// Leave the messages pending: the next run tries again, and dedup
		// folds what was stored this time.
		fmt.Fprintf(m.Stderr, "cairn: %d of %d memories could not be stored; the messages stay pending\n", failed, len(mems))
		return exitError(exitFailure)
	}
	if modelFailed {
		fmt.Fprintf(m.Stdout, "stored %d memories from %s without the model; %d pending\n", len(mems), file, pending)
		return nil
	}
	if err := log.MarkExtracted(month, batch.To); err != nil {
		return err
	}
	fmt.Fprintf(m.Stdout, "extracted %d messages of %s: %d memories (%d new, %d reinforced, %d updated, %d unchanged); 0 pending\n",
		pending, file, len(mems), counts[cairn.StatusCreated], counts[cairn.StatusReinforced],
		counts[cairn.StatusUpdated], counts[cairn.StatusUnchanged])
	return nil
}

// extractMemories turns conversation messages into memories to store. The
// caller sets the project and fills in provenance left empty.
//
// It is deterministic: the signals of package capture (MEMORY:,
// <learning>, <failure-report>, …) in user and assistant messages. When a
// model is configured (package extract, CAIRN_MODEL_BASE_URL and
// CAIRN_MODEL), runConverse also sends the batch, rendered by
// renderMessages, to the model and stores its memories too; if that call
// fails the batch stays pending and is retried by the next call.
func extractMemories(msgs []conversation.Message) []*cairn.Memory {
	var out []*cairn.Memory
	for _, msg := range msgs {
		if msg.Role != conversation.RoleUser && msg.Role != conversation.RoleAssistant {
			continue
		}
		sigs, _ := capture.Parse(msg.Content) // problems in chat text are not worth reporting
		for _, sig := range sigs {
			mem := sig.Memory("")
			if msg.Role == conversation.RoleAssistant && msg.SenderName != "" {
				mem.Agent = msg.SenderName
			}
			out = append(out, mem)
		}
	}
	return out
}

// renderMessages renders messages for the model as "role: content" lines,
// one message after the other.
func renderMessages(msgs []conversation.Message) string {
	var b strings.Builder
	for _, msg := range msgs {
		b.WriteString(msg.Role)
		b.WriteString(": ")
		b.WriteString(msg.Content)
		b.WriteString("\n")
	}
	return b.String()
}
