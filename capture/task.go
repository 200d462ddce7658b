package capture

import (
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// Learning from a task's outcome, as seed 002's orchestrator does after a
// quality gate (learnFromFailure, learnFromTask), and as seed 000 extracts
// at task completion.

// FailureConfidence is the confidence of what a failed task teaches (seed
// 002: 0.7).
const FailureConfidence = 0.7

// failureChars is how much of the error a failure keeps (seed 002: 200).
const failureChars = 200

// FailureKey is the key of the error_solution memory of agent's failure at
// the task titled title: "agent: title", cut to cairn.MaxNameBytes.
func FailureKey(agent, title string) string {
	return cutBytes(agent+": "+strings.Join(strings.Fields(title), " "), cairn.MaxNameBytes)
}

// LearnFromFailure is seed 002's learnFromFailure: an error_solution memory
// keyed FailureKey(agent, title), "Failed with: " and the first 200
// characters of the error, confidence 0.7, written by agent. The same
// agent failing the same task again updates it (a key).
func LearnFromFailure(project, agent, title, errText string) *cairn.Memory {
	e := strings.Join(strings.Fields(errText), " ")
	if utf8.RuneCountInString(e) > failureChars {
		e = string([]rune(e)[:failureChars])
	}
	return &cairn.Memory{
		Project: project, Type: "error_solution", Key: FailureKey(agent, title),
		Title:   cutBytes("Failed: "+strings.Join(strings.Fields(title), " "), cairn.MaxTitleBytes),
		Content: "Failed with: " + e, Confidence: FailureConfidence, Source: cairn.SourceAutomatic, Agent: agent,
	}
}

// ruleRE matches a sentence that states how things are done: what seed
// 002's learnFromTask keeps as a pattern ("All mutations use requireAuth()
// first", "every table includes companyId") and seed 000 as a convention
// ("… by convention", naming and formatting rules).
var ruleRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(always|never|all \w+|every \w+|each \w+|must|should|by convention|convention|pattern|is required|are required)\b`)
})

var conventionRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(convention|naming|named|names?|format(ted|ting)?|style|indent\w*|prefix\w*|suffix\w*|case)\b`)
})

// maxTaskRules bounds the patterns one summary yields.
const maxTaskRules = 5

// LearnFromTask is seed 002's learnFromTask made general: the sentences of
// a completed task's summary that state a rule (always, never, every, all
// …, must, should, convention, pattern) become pattern memories, or
// convention memories when they are about naming, format or style,
// written by agent, at most five. A sentence with a signal (MEMORY: …) is
// left to Parse. The same rule learned again reinforces the memory stored
// (content dedup).
func LearnFromTask(project, agent, summary string) []*cairn.Memory {
	var out []*cairn.Memory
	for _, s := range sentences(summary) {
		if len(out) == maxTaskRules {
			break
		}
		if strings.Contains(s, "MEMORY:") || strings.HasPrefix(s, "<") || utf8.RuneCountInString(s) < 15 || !ruleRE().MatchString(s) {
			continue
		}
		typ := "pattern"
		if conventionRE().MatchString(s) {
			typ = "convention"
		}
		out = append(out, &cairn.Memory{Project: project, Type: typ, Content: s, Source: cairn.SourceAutomatic, Agent: agent})
	}
	return out
}

// sentences splits text into sentences and list items, one line each.
func sentences(text string) []string {
	var out []string
	for _, line := range strings.Split(text, "\n") {
		line = strings.TrimSpace(strings.TrimLeft(strings.TrimSpace(line), "-*•0123456789.) "))
		for line != "" {
			i := strings.IndexAny(line, ".!?")
			for i >= 0 && i+1 < len(line) && (line[i+1] != ' ' || abbreviation(line[:i])) {
				j := strings.IndexAny(line[i+1:], ".!?")
				if j < 0 {
					i = -1
					break
				}
				i += j + 1
			}
			if i < 0 {
				out = append(out, line)
				break
			}
			out = append(out, strings.TrimSpace(line[:i+1]))
			line = strings.TrimSpace(line[i+1:])
		}
	}
	return out
}

// abbreviation reports whether the text before a period ends in an
// abbreviation ("e.g", "i.e", "etc", "vs") or one letter, which the
// period does not end a sentence after.
func abbreviation(before string) bool {
	w := before[strings.LastIndexAny(before, " (")+1:]
	switch strings.ToLower(w) {
	case "e.g", "i.e", "etc", "vs", "cf", "approx":
		return true
	}
	return utf8.RuneCountInString(w) == 1
}

func cutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return strings.TrimSpace(cairn.CutBytes(s, n))
}
