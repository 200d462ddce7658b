package capture

import (
	"fmt"
	"regexp"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// KindHatTransition is a memory extracted at a hat transition (seed 000):
// from the explorer's output when it hands over to the planner, from the
// planner's when it hands over to the creator.
const KindHatTransition = "hat_transition"

// hatRule says which sentences of the output at a transition become which
// memory type.
type hatRule struct {
	typ string
	re  *regexp.Regexp
}

var hatRules = sync.OnceValue(func() map[string][]hatRule {
	dep := hatRule{"dependency", regexp.MustCompile(`(?i)\b(depends on|depend on|dependency|dependencies|library|libraries|sdk|requires|v\d+(\.\d+)+|version \d)`)}
	depWeak := hatRule{"dependency", regexp.MustCompile(`(?i)\b(package|module|framework|client)\b`)}
	arch := hatRule{"architecture", regexp.MustCompile(`(?i)\b(architecture|layer|layers|service|services|component|components|entry ?point|handler|handlers|middleware|database|schema|store[sd]?|talks to|calls|flows? through|is (split|organi[sz]ed) into|lives in|is in|are in|under \S+/)`)}
	cons := hatRule{"constraint", regexp.MustCompile(`(?i)\b(must|must not|mustn't|cannot|can't|never|only|no more than|at most|at least|required|requirement|limit|budget|do not|don't)\b`)}
	dec := hatRule{"decision", regexp.MustCompile(`(?i)\b(we will|we'll|i will|i'll|decided|decision|chose|choose|going with|go with|instead of|rather than|plan is|approach|the plan|use \S+ (for|to))\b`)}
	return map[string][]hatRule{
		"explorer:planner": {dep, arch, depWeak},
		"planner:creator":  {cons, dec},
	}
})

// HatTransitions are the transitions HatTransition extracts at.
func HatTransitions() []string { return slices.Clone(cairn.HatTransitions) }

// maxHatMemories bounds what one transition yields.
const maxHatMemories = 10

// HatTransition extracts, without a model, what seed 000 keeps at a hat
// transition from the output the agent wrote at that point: at
// explorer→planner ("explorer:planner") the sentences and list items that
// describe dependencies (libraries, packages, versions, "depends on") and
// architecture (layers, services, where things live, what calls what); at
// planner→creator the constraints (must, never, only, at most …) and the
// decisions (we will, chose, instead of, the approach …). A sentence is
// kept once, as the first type whose words it has; at most ten. Each is a
// signal of KindHatTransition, tagged hat-transition and the transition.
// An unknown transition is an error that lists the known ones.
func HatTransition(transition, text string) ([]Signal, error) {
	transition = strings.ToLower(strings.TrimSpace(transition))
	rules, ok := hatRules()[transition]
	if !ok {
		return nil, fmt.Errorf("unknown hat transition %q: use %s", transition, strings.Join(HatTransitions(), " or "))
	}
	tag := strings.ReplaceAll(transition, ":", "-to-")
	var out []Signal
	for _, s := range lineSentences(text) {
		if len(out) == maxHatMemories {
			break
		}
		if utf8.RuneCountInString(s.text) < 20 || strings.Contains(s.text, "MEMORY:") || strings.HasPrefix(s.text, "#") {
			continue
		}
		for _, r := range rules {
			if r.re.MatchString(s.text) {
				out = append(out, Signal{Kind: KindHatTransition, Type: r.typ, Content: s.text,
					Tags: []string{"hat-transition", tag}, Line: s.line})
				break
			}
		}
	}
	return out, nil
}

type lineSentence struct {
	text string
	line int
}

// lineSentences are text's sentences and list items with their lines.
func lineSentences(text string) []lineSentence {
	var out []lineSentence
	fence := false
	for i, l := range strings.Split(text, "\n") {
		if strings.HasPrefix(strings.TrimSpace(l), "```") {
			fence = !fence
			continue
		}
		if fence {
			continue
		}
		for _, s := range sentences(l) {
			out = append(out, lineSentence{s, i + 1})
		}
	}
	return out
}
