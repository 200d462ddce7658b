package lexical

import (
	"strings"
	"sync"
)

// fillerList holds the words of a prompt that say how it is put, not what
// it is about: greetings and thanks, politeness, acknowledgements, the
// glue of a conversation with an agent ("lets continue with the next
// task", "quick question", "go ahead"), the phrases that steer a model
// ("ultrathink", "think", "(quick task)"), and the vaguest verbs, nouns
// and question words ("could you help me find something", "have I ever",
// "how many", "as I mentioned earlier"). Each also names its inflections
// (stemming joins them). Words that stem like a word of another meaning,
// or are often the subject of a memory, are left out: "resume" (a CV),
// "may" (a month), "excellent" (Excel), "probably" (probability), "go",
// "sort", "bit", "hard", "chat", "recall".
const fillerList = `
hi hello hey hiya howdy yo bye goodbye cheers thanks thank thx ty welcome
please pls plz kindly sorry
ok okay yes yeah yep yup nope sure alright fine cool great good nice
perfect awesome wonderful amazing
let lets ahead continue proceed keep carry next again quick quickly
start begin finish done try task step
also actually really basically maybe perhaps simply
ultrathink megathink think
could would might must shall need want like know see look get make take
give use help show tell find work say ask mention remember
ever anything something everything nothing anyone someone thing stuff
way kind lot much many
question conversation earlier previously ago discuss talk
`

var (
	fillerOnce  sync.Once
	fillerTerms map[string]bool
)

// IsFiller reports whether term, a term as Analyze and QueryTerms give it
// (stemmed), is a filler word of a prompt: a word that says how the prompt
// is put, not what it is about (see fillerList). Search still matches
// these words; a relevance floor should neither count them for a memory
// nor against it, so that "hey, quick task (ultrathink): ..." finds what
// the rest of the prompt finds.
func IsFiller(term string) bool {
	fillerOnce.Do(func() {
		words := strings.Fields(fillerList)
		fillerTerms = make(map[string]bool, len(words))
		for _, w := range words {
			terms, _ := Analyze(w, nil)
			for _, t := range terms {
				fillerTerms[t] = true
			}
		}
	})
	return fillerTerms[term]
}
