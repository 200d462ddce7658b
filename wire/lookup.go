package wire

import (
	"math"
	"time"

	"github.com/cairn-dev/cairn"
)

// Lookup is a cairn.LookupAnswer as JSON: what `cairn recall --json` prints, the
// MCP lookup tools and the REST API's lookup route answer.
type Lookup struct {
	Kind     string          `json:"kind"`
	Subject  string          `json:"subject"`
	Items    []LookupItem    `json:"items"`
	Commands []LookupCommand `json:"commands,omitempty"`
	Omitted  int             `json:"omitted"`
	Text     string          `json:"text"`
}

// LookupItem is one memory of an answer.
type LookupItem struct {
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
	Flag       string   `json:"flag,omitempty"`
}

// LookupCommand is a command line that worked.
type LookupCommand struct {
	Line     string   `json:"line"`
	Count    int      `json:"count"`
	LastSeen string   `json:"last_seen"`
	IDs      []string `json:"ids"`
}

// LookupOf is r as JSON.
func LookupOf(r *cairn.LookupAnswer) Lookup {
	o := Lookup{Kind: r.Kind, Subject: r.Subject, Items: []LookupItem{}, Omitted: r.Omitted, Text: r.Text}
	for _, it := range r.Items {
		m := it.Memory
		o.Items = append(o.Items, LookupItem{ID: m.ID, Type: m.Type, Title: m.Title, Content: m.Content, Section: it.Section,
			Why: it.Why, Score: math.Round(it.Score*1000) / 1000, Confidence: m.Confidence, Files: m.FileRefs,
			CreatedAt: m.CreatedAt.UTC().Format(time.RFC3339), Flag: m.Flag})
	}
	for _, c := range r.Commands {
		o.Commands = append(o.Commands, LookupCommand{Line: c.Line, Count: c.Count, LastSeen: c.LastSeen.UTC().Format(time.RFC3339), IDs: c.IDs})
	}
	return o
}

// Answer is the answer o holds: its memories carry the fields the JSON
// has (a client's answer from a server).
func (o Lookup) Answer() *cairn.LookupAnswer {
	r := &cairn.LookupAnswer{Kind: o.Kind, Subject: o.Subject, Omitted: o.Omitted, Text: o.Text}
	for _, it := range o.Items {
		at, _ := time.Parse(time.RFC3339, it.CreatedAt)
		m := &cairn.Memory{ID: it.ID, Type: it.Type, Title: it.Title, Content: it.Content, Confidence: it.Confidence,
			FileRefs: it.Files, CreatedAt: at, Flag: it.Flag}
		r.Items = append(r.Items, cairn.LookupItem{Memory: m, Score: it.Score, Section: it.Section, Why: it.Why})
	}
	for _, c := range o.Commands {
		at, _ := time.Parse(time.RFC3339, c.LastSeen)
		r.Commands = append(r.Commands, cairn.LookupCommandLine{Line: c.Line, Count: c.Count, LastSeen: at, IDs: c.IDs})
	}
	return r
}
