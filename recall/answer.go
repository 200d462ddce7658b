package recall

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/contextpack"
	"github.com/cairn-dev/cairn/engine"
	"github.com/cairn-dev/cairn/hook"
)

// Recorder records that a block showed the memories ids in session. A
// long-running server batches these writes; a one-shot process writes
// them at once (engine.Engine.RecordUse).
type Recorder func(ctx context.Context, ids []string, session string) error

// AnswerCall builds the block of call with eng (bound to the call's
// project) and the settings c (nil: the project's stored settings, else
// the engine's own: engine.Engine.SettingsOf), and records its use with
// record when the call asks for it. A call the configuration cannot serve
// is an *InvalidError; one whose block does not fit in call.MaxJSONChars
// fails with hook.ErrTooLong. When only the recording fails, the answer is
// returned with that error: the block is right, its bookkeeping is not.
// Safe for concurrent use when eng and record are.
func AnswerCall(ctx context.Context, eng *engine.Engine, c *cairn.Settings, call cairn.ContextCall, record Recorder) (*cairn.ContextBlock, error) {
	if c == nil {
		var err error
		if c, err = eng.SettingsOf(ctx, call.Project); err != nil {
			return nil, err
		}
	}
	c = c.Clone()
	if !call.Now.IsZero() {
		now := call.Now
		eng = eng.WithClock(func() time.Time { return now })
	}
	b, err := Build(ctx, eng, c, call.ContextRequest)
	if err != nil {
		return nil, err
	}
	if call.MaxJSONChars > 0 {
		if err := fit(b, call.Project, call.MaxJSONChars); err != nil {
			return nil, err
		}
	}
	a := &cairn.ContextBlock{Text: b.Text, IDs: b.IDs(), Tokens: b.Result.Tokens, Retrieval: b.Selection.Retrieval}
	if call.Explain {
		a.Explain = Explain(b)
	}
	if call.Record && len(a.IDs) > 0 && record != nil {
		if err := record(ctx, a.IDs, call.Session); err != nil {
			return a, fmt.Errorf("recording the use of the block's memories: %w", err)
		}
	}
	return a, nil
}

// fit renders the block again, shorter, while its JSON-escaped text is
// longer than max: the character cap counts the text, and escaping (a
// line break is \n) makes it longer.
func fit(b *Block, project string, max int) error {
	c := b.Config
	for maxChars := c.Context.MaxChars; ; {
		over := hook.EscapedLen(b.Result.Text) - max
		if over <= 0 {
			return nil
		}
		maxChars -= over + 64
		if maxChars <= 0 {
			return hook.ErrTooLong
		}
		b.Result = contextpack.Render(contextpack.Request{
			Project: project, Sections: Sections(b.Selection), Budget: c.Context.Budget,
			MaxChars: maxChars, Format: c.Context.Format, Now: b.annotateAt,
		})
		b.Text = b.Result.Text
	}
}

// Explain says, after a block, how it was made: the mode, keywords and
// search terms, the budget, each chosen memory's score and what was left
// out and why (`cairn context --explain`).
func Explain(b *Block) string {
	var w strings.Builder
	c, sel, res := b.Config, b.Selection, b.Result
	fmt.Fprintf(&w, "\n--- explain ---\n")
	if c.Context.Mode != "" {
		fmt.Fprintf(&w, "mode: %s\n", c.Context.Mode)
	}
	if len(b.Keywords) > 0 {
		fmt.Fprintf(&w, "keywords: %s\n", strings.Join(b.Keywords, ", "))
	}
	fmt.Fprintf(&w, "search terms: %s\n", strings.Join(sel.Terms, " "))
	w.WriteString(sel.Retrieval.ExplainLine())
	fmt.Fprintf(&w, "budget: %d tokens, used %d; relevant limit %d, threshold %.2f, sessions %d\n",
		c.Context.Budget, res.Tokens, c.Context.Relevant.Limit, c.Scoring.Threshold, c.Context.Dynamic.Count)
	if res.Explain != "" {
		w.WriteString(res.Explain)
		if !strings.HasSuffix(res.Explain, "\n") {
			w.WriteByte('\n')
		}
	}
	for _, l := range sel.LeftOut {
		if l.Score != 0 {
			fmt.Fprintf(&w, "left out %s: %s (score %.3f)\n", l.ID, l.Reason, l.Score)
		} else {
			fmt.Fprintf(&w, "left out %s: %s\n", l.ID, l.Reason)
		}
	}
	return w.String()
}

// AsInvalid turns an *InvalidError into an EINVALID error, for transports
// that speak in cairn's error codes; other errors are returned as they
// are.
func AsInvalid(err error) error {
	var ie *InvalidError
	if errors.As(err, &ie) {
		return cairn.Errorf(cairn.EINVALID, "%s", ie.Msg)
	}
	return err
}
