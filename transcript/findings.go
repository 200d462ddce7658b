package transcript

import (
	"regexp"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
)

// CriticHat is the hat whose assistant text is read for review findings.
const CriticHat = "critic"

// Critic findings become pitfall memories with these tags and confidence.
var FindingTags = []string{"review", "critic-finding"}

const FindingConfidence = 0.6

var (
	// bulletRE matches a list item: "- ", "* " or "1. " (also "1) ").
	bulletRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(?:[-*]|\d+[.)])\s+(.*)$`) })
	// findingWordRE marks a heading or lead-in line that introduces findings.
	findingWordRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`(?i)finding|issue|problem|concern|bug`) })
	// findingItemRE marks a list item that is a finding on its own.
	findingItemRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`(?i)^(?:\*\*\s*(?:issue|bug|problem)|(?:issue|bug|problem)\s*:)`)
	})
)

// Findings returns the review findings in a critic's text, one string
// per finding (see the package doc for the rules).
func Findings(text string) []string {
	var out []string
	var cur []string
	inSection := false
	flush := func() {
		if len(cur) > 0 {
			if f := strings.TrimSpace(strings.Join(cur, "\n")); f != "" {
				out = append(out, f)
			}
			cur = nil
		}
	}
	for _, raw := range strings.Split(text, "\n") {
		line := strings.TrimRight(raw, " \t\r")
		trimmed := strings.TrimSpace(line)
		if trimmed == "" {
			flush()
			continue
		}
		indented := line != strings.TrimLeft(line, " \t")
		if indented && cur != nil {
			cur = append(cur, trimmed) // continuation or nested item
			continue
		}
		if m := bulletRE().FindStringSubmatch(trimmed); m != nil && !indented {
			flush()
			if inSection || findingItemRE().MatchString(m[1]) {
				cur = []string{m[1]}
			}
			continue
		}
		flush()
		if strings.HasPrefix(trimmed, "```") {
			inSection = false
			continue
		}
		// A heading or any other line: it opens a findings section when it
		// names findings, and closes one otherwise.
		inSection = findingWordRE().MatchString(trimmed)
	}
	flush()
	return out
}

// findingMemory turns one finding into a pitfall memory.
func (x *Extractor) findingMemory(f string, e Entry) *cairn.Memory {
	content := cut(f, 2000)
	title := shorten(strings.Join(strings.Fields(strings.ReplaceAll(strings.SplitN(f, "\n", 2)[0], "**", "")), " "), 80)
	return &cairn.Memory{
		Project:    x.Project,
		Type:       "pitfall",
		Title:      title,
		Content:    content,
		Tags:       append([]string(nil), FindingTags...),
		Confidence: FindingConfidence,
		Source:     cairn.SourceAutomatic,
		SessionID:  e.SessionID,
	}
}

func (x *Extractor) findings(text string, e Entry) []*cairn.Memory {
	if x.Hat != CriticHat {
		return nil
	}
	var out []*cairn.Memory
	for _, f := range Findings(text) {
		out = append(out, x.findingMemory(f, e))
	}
	return out
}
