package hook

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/capture"
	"github.com/cairn-dev/cairn/ingest"
	"github.com/cairn-dev/cairn/transcript"
)

// PassedGate reports whether the tool call of a PostToolUse payload ran
// a test, build or lint command that passed: it ends what it fixed, so
// the session is worth capturing then (a failed one is captured once the
// command passes).
func (p *Payload) PassedGate() bool {
	cmd := p.Command()
	if cmd == "" || !transcript.IsGate(cmd) {
		return false
	}
	out, failed := p.ToolResult()
	return !transcript.Failed(failed, out)
}

// CaptureOptions say whose session a capture is of.
type CaptureOptions struct {
	Project string // the project of the session's folder
	// Agent is the agent whose hook this is: "claude", or "codex" (Claude
	// Code's payloads, but the transcript a rollout of Codex's format).
	// The transcript of another agent is not read.
	Agent string
	Hat   string // the session's hat, given to what is stored
	Home  string // the home folder, for a transcript_path of the form ~/… (and paths under it are stored as ~/…)
	Root  string // the project's folder: paths inside it are stored relative to it ("" takes the transcript's first cwd)
	// Ask, at Stop, decides whether to ask the agent, once per session,
	// for its own account of what a later session should know
	// (Captured.Ask); never when the payload's stop_hook_active is set.
	Ask bool
}

// Captured is what a capture found to say back to the agent.
type Captured struct {
	// Ask is why the agent should be asked to write what a later
	// session should know (see AskReason), "" when it need not be.
	Ask string
}

// Capture stores what the session of p taught since the last capture at
// event ev (Stop, SubagentStop, PreCompact, SessionEnd, PostToolUse):
// the new lines of its transcript (package ingest: the cursor is kept in
// the database, so a capture run again reads nothing twice) and, at Stop
// and SubagentStop, the signals of last_assistant_message, which the
// transcript may not hold yet (the engine counts the repeat of the same
// session's signal once). A transcript not written yet is nothing to
// read. The errors of both are joined; one does not stop the other,
// except a service that cannot be reached (EUNAVAILABLE), which is
// returned at once.
func Capture(ctx context.Context, svc ingest.Service, ev Event, p *Payload, opts CaptureOptions) (Captured, error) {
	var got Captured
	kind, path := transcriptOf(ev, p, opts)
	// An agent whose last message holds signals recorded what it learned.
	sigs, _ := capture.Parse(p.LastAssistantMessage)
	opts.Ask = opts.Ask && ev == Stop && !p.StopHookActive && len(sigs) == 0
	var errs []error
	if path != "" {
		if opts.Ask && opts.Agent == "claude" {
			// Claude Code writes its transcript behind the hooks: the
			// last tool results may not be there yet, and what to ask
			// depends on them.
			awaitMessage(ctx, path, p.LastAssistantMessage, transcriptWait)
		}
		ask, err := captureTranscript(ctx, svc, kind, path, opts)
		if cairn.ErrorCode(err) == cairn.EUNAVAILABLE {
			return got, err
		}
		if err != nil {
			errs = append(errs, err)
		}
		got.Ask = ask
	}
	if (ev == Stop || ev == SubagentStop) && strings.TrimSpace(p.LastAssistantMessage) != "" {
		err := captureMessage(ctx, svc, p, opts)
		if cairn.ErrorCode(err) == cairn.EUNAVAILABLE {
			return got, err
		}
		if err != nil {
			errs = append(errs, err)
		}
	}
	return got, errors.Join(errs...)
}

// transcriptWait bounds how long a Stop that may ask waits for the
// transcript to hold the agent's last message.
const transcriptWait = 1500 * time.Millisecond

// awaitMessage waits, up to limit, until the end of the transcript at
// path holds the start of msg as the transcript writes it (a JSON
// string); it returns at once for an empty msg or a file that cannot be
// read.
func awaitMessage(ctx context.Context, path, msg string, limit time.Duration) {
	msg = strings.TrimSpace(msg)
	if msg == "" {
		return
	}
	msg = cairn.CutBytes(msg, 48)
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if enc.Encode(msg) != nil {
		return
	}
	want := bytes.TrimSuffix(bytes.TrimSpace(buf.Bytes()), []byte{'"'})[1:]
	deadline := time.Now().Add(limit)
	for {
		if tailHolds(path, want) {
			return
		}
		if time.Now().After(deadline) {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// tailHolds reports whether the last 256 KiB of the regular file at path
// hold want; true when the file cannot be read (nothing to wait for).
func tailHolds(path string, want []byte) bool {
	if fi, err := os.Stat(path); err != nil || !fi.Mode().IsRegular() {
		return true // before opening: opening a FIFO waits for a writer
	}
	f, err := os.Open(path)
	if err != nil {
		return true
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return true
	}
	const tail = 256 << 10
	off := max(fi.Size()-tail, 0)
	b := make([]byte, fi.Size()-off)
	if _, err := f.ReadAt(b, off); err != nil && !errors.Is(err, io.EOF) {
		return true
	}
	return bytes.Contains(b, want)
}

// HasCapture reports whether Capture has anything to read for ev and p:
// a transcript that exists, or signals in last_assistant_message. Without
// any, a hook need not reach the database at all.
func HasCapture(ev Event, p *Payload, opts CaptureOptions) bool {
	if _, path := transcriptOf(ev, p, opts); path != "" {
		if _, err := os.Stat(path); err == nil {
			return true // a file that is not regular is said so by Capture
		}
	}
	if ev == Stop || ev == SubagentStop {
		sigs, probs := capture.Parse(p.LastAssistantMessage)
		return len(sigs) > 0 || len(probs) > 0
	}
	return false
}

// transcriptOf is the kind and path of the transcript a capture reads;
// the path is "" when there is none to read.
func transcriptOf(ev Event, p *Payload, opts CaptureOptions) (kind, path string) {
	path = p.TranscriptPath
	if ev == SubagentStop && p.AgentTranscriptPath != "" {
		path = p.AgentTranscriptPath
	}
	path = expandHome(path, opts.Home)
	switch opts.Agent {
	case "claude":
		return ingest.Claude, path
	case "codex":
		return ingest.Codex, path // Claude Code's payloads, but a rollout file of Codex's format
	}
	return "", ""
}

// captureTranscript reads the new lines of the transcript at path, and
// says why the agent should be asked for its account (opts.Ask).
func captureTranscript(ctx context.Context, svc ingest.Service, kind, path string, opts CaptureOptions) (string, error) {
	fi, err := os.Stat(path)
	if errors.Is(err, os.ErrNotExist) {
		return "", nil // Claude Code writes the transcript lazily: nothing said yet
	}
	if err == nil && !fi.Mode().IsRegular() {
		// A FIFO or a device would hold the hook until its timeout.
		return "", fmt.Errorf("ingest %s: not a regular file (%s); it was not read", path, fi.Mode().Type())
	}
	var failed []string
	rep, err := ingest.File(ctx, svc, path, ingest.Options{Kind: kind, Project: opts.Project, Hat: opts.Hat,
		Root: opts.Root, Home: opts.Home, Ask: opts.Ask,
		OnWrite: func(m *cairn.Memory, _ *cairn.WriteResult, err error) {
			if err != nil {
				failed = append(failed, fmt.Sprintf("cannot store the %s %q: %s", m.Type, m.Title, cairn.ErrorMessage(err)))
			}
		}})
	if err != nil {
		return "", fmt.Errorf("ingest %s: %w", path, err)
	}
	if rep.Failed > 0 {
		return rep.Ask, fmt.Errorf("ingest %s: %d memories could not be stored: %s", path, rep.Failed, strings.Join(failed, "; "))
	}
	return rep.Ask, nil
}

// AskReason is what the Stop hook tells the agent when it asks for its
// own account of the session: why (Captured.Ask) and what to write.
func AskReason(why string) string {
	return "cairn: before you stop — in this session " + why + ". If a later session on this project should know " +
		"something from it (the cause of a failure and what fixed it, a pitfall, what the user wants done differently), " +
		"write it now as lines MEMORY:<type>:<one or two sentences> (type fix, pitfall, convention or decision), " +
		"or with the remember tool. If nothing is worth keeping, answer \"nothing\". Then stop; you will not be asked again."
}

// captureMessage stores the signals of last_assistant_message; the
// signals it could not read (capture.Problem) are returned as its error,
// after the others are stored.
func captureMessage(ctx context.Context, svc ingest.Service, p *Payload, opts CaptureOptions) error {
	sigs, probs := capture.Parse(p.LastAssistantMessage)
	prov := capture.Provenance{Hat: opts.Hat, Agent: opts.Agent, Session: p.SessionID}
	var failed []string
	for _, pr := range probs { // a signal dropped is said, in the hook's log
		failed = append(failed, fmt.Sprintf("line %d: %s", pr.Line, pr.Reason))
	}
	for _, sig := range sigs {
		_, err := svc.AddMemory(ctx, sig.MemoryFrom(opts.Project, prov))
		if err != nil && (ctx.Err() != nil || cairn.ErrorCode(err) == cairn.EUNAVAILABLE) {
			return err
		}
		if err != nil {
			failed = append(failed, fmt.Sprintf("cannot store the %s: %s", sig.Kind, cairn.ErrorMessage(err)))
		}
	}
	if len(failed) > 0 {
		return fmt.Errorf("last assistant message: %s", strings.Join(failed, "; "))
	}
	return nil
}

// expandHome expands a leading "~/" (the form the hook documentation
// shows for transcript_path) when home is known.
func expandHome(path, home string) string {
	if rest, ok := strings.CutPrefix(path, "~/"); ok && home != "" {
		return filepath.Join(home, rest)
	}
	return path
}
