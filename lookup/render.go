package lookup

import (
	"fmt"

	"github.com/cairn-dev/cairn/contextpack"
	"math"
	"strings"
	"time"
)

// approxTokens estimates the tokens of s as contextpack does: about four
// bytes a token.
func approxTokens(s string) int { return (len(s) + 3) / 4 }

// Ago says how long before now t was: contextpack.Ago.
func Ago(t, now time.Time) string { return contextpack.Ago(t, now) }

var sectionTitle = map[string]map[string]string{
	KindFile:    {"known": "Known about it", "sessions": "Sessions that changed it"},
	KindError:   {"fixes": "What fixed it before", "related": "Related pitfalls and issues"},
	KindCommand: {"related": "What the memories say about running it"},
}

// render writes res.Text within req.Budget tokens, dropping the items
// (and commands) that do not fit and counting them in Omitted.
func render(res *Result, req Request) {
	if len(res.Items) == 0 && len(res.Commands) == 0 {
		return
	}
	var b strings.Builder
	switch res.Kind {
	case KindFile:
		fmt.Fprintf(&b, "## What is known about `%s`\n", res.Subject)
	case KindError:
		fmt.Fprintf(&b, "## What fixed this error before\n")
	case KindCommand:
		fmt.Fprintf(&b, "## How `%s` was run when it worked\n", res.Subject)
	}
	budget := req.Budget*4 - 80 // room for the closing line
	if len(res.Commands) > 0 {
		b.WriteString("\n")
		kept := res.Commands[:0]
		for _, c := range res.Commands {
			line := fmt.Sprintf("- `%s` — worked %d×, last %s [%s]\n", c.Line, c.Count, Ago(c.LastSeen, req.Now), c.IDs[0])
			if b.Len()+len(line) > budget {
				res.Omitted++
				continue
			}
			b.WriteString(line)
			kept = append(kept, c)
		}
		res.Commands = kept
	}
	section := ""
	kept := res.Items[:0]
	for _, it := range res.Items {
		var s strings.Builder
		if it.Section != section {
			fmt.Fprintf(&s, "\n### %s\n", sectionTitle[res.Kind][it.Section])
		}
		m := it.Memory
		fmt.Fprintf(&s, "- [%s] %s (%s, %s; %s) [%s]\n", m.Type, oneLine(m.Title), it.Why, Ago(m.CreatedAt, req.Now),
			confidenceText(m.Confidence), m.ID)
		if body := oneLine(m.Content); body != "" && body != oneLine(m.Title) {
			room := budget - b.Len() - s.Len() - 6
			if room > 0 {
				fmt.Fprintf(&s, "  %s\n", clipBytes(body, min(room, 400)))
			}
		}
		if b.Len()+s.Len() > budget {
			res.Omitted++
			continue
		}
		section = it.Section
		b.WriteString(s.String())
		kept = append(kept, it)
	}
	res.Items = kept
	if res.Omitted > 0 {
		fmt.Fprintf(&b, "\n(%d more not shown: raise the budget or the limit)\n", res.Omitted)
	}
	res.Text = b.String()
}

func confidenceText(c float64) string { return fmt.Sprintf("confidence %.2f", c) }

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// clipBytes cuts s to at most n bytes on a rune boundary, "…" marking a cut.
func clipBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	n -= len("…")
	for n > 0 && (s[n]&0xC0) == 0x80 {
		n--
	}
	if n <= 0 {
		return "…"
	}
	return s[:n] + "…"
}

// Out is a Result as JSON: what `cairn recall --json` prints and the MCP
// lookup tools answer.
type Out struct {
	Kind     string       `json:"kind"`
	Subject  string       `json:"subject"`
	Items    []OutItem    `json:"items"`
	Commands []OutCommand `json:"commands,omitempty"`
	Omitted  int          `json:"omitted"`
	Text     string       `json:"text"`
}

// OutItem is one memory of an answer.
type OutItem struct {
	ID         string   `json:"id"`
	Type       string   `json:"type"`
	Title      string   `json:"title"`
	Content    string   `json:"content"`
	Section    string   `json:"section"`
	Why        string   `json:"why"`
	Score      float64  `json:"score"` // rounded to 3 decimals
	Confidence float64  `json:"confidence"`
	Files      []string `json:"files,omitempty"`
	CreatedAt  string   `json:"created_at"`
}

// OutCommand is a command line that worked.
type OutCommand struct {
	Line     string   `json:"line"`
	Count    int      `json:"count"`
	LastSeen string   `json:"last_seen"`
	IDs      []string `json:"ids"`
}

// Out returns r as JSON.
func (r *Result) Out() Out {
	o := Out{Kind: r.Kind, Subject: r.Subject, Items: []OutItem{}, Omitted: r.Omitted, Text: r.Text}
	for _, it := range r.Items {
		m := it.Memory
		o.Items = append(o.Items, OutItem{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Section: it.Section,
			Why: it.Why, Score: math.Round(it.Score*1000) / 1000, Confidence: m.Confidence, Files: m.FileRefs, CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339)})
	}
	for _, c := range r.Commands {
		o.Commands = append(o.Commands, OutCommand{Line: c.Line, Count: c.Count, LastSeen: c.LastSeen.UTC().Format(time.RFC3339), IDs: c.IDs})
	}
	return o
}
