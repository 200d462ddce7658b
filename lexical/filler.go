package lexical

import "slices"

// fillerWords are the words of a prompt that say how it is put, not what
// it is about: greetings and thanks, politeness, acknowledgements, the
// glue of a conversation with an agent ("lets continue with the next
// task", "quick question", "go ahead"), the words that steer a model
// ("ultrathink", "think", "(quick task)"), and the vaguest verbs, nouns
// and question words ("could you help me find something", "have I ever",
// "how many", "as I mentioned earlier"). Stemming joins their inflections.
// Words that stem like a word of another meaning, or are often the
// subject of a memory, are left out: "resume" (a CV), "may" (a month),
// "excellent" (Excel), "probably" (probability), "basically" (basic
// auth), "go", "sort", "bit", "hard", "chat", "recall".
const fillerWords = `
hi hello hey hiya howdy yo bye goodbye cheers thanks thank thx ty welcome
please pls plz kindly sorry
ok okay yes yeah yep yup nope sure alright fine cool great good nice
perfect awesome wonderful amazing
let lets ahead continue proceed keep carry next again quick quickly
start begin finish done try task step
also actually really maybe perhaps simply
ultrathink megathink think
could would might must shall need want like know see look get make take
give use help show tell find work say ask mention remember
ever anything something everything nothing anyone someone thing stuff
way kind lot much many
question conversation earlier previously ago discuss talk
`

// fillerTerms are the terms of fillerWords, sorted, written out
// (TestFillerTermsAreTheFillerWords) so that no process analyses the
// words when it starts.
var fillerTerms = []string{
	"actual", "ago", "ahead", "alright", "also", "amaz", "anyon", "anyth",
	"ask", "awesom", "begin", "bye", "carri", "cheer", "continu", "convers",
	"cool", "could", "discuss", "done", "earlier", "ever", "everyth", "find",
	"fine", "finish", "get", "give", "good", "goodby", "great", "hei",
	"hello", "help", "hi", "hiya", "howdi", "keep", "kind", "kindli", "know",
	"let", "like", "look", "lot", "make", "mani", "mayb", "megathink",
	"mention", "might", "much", "must", "need", "next", "nice", "nope",
	"noth", "ok", "okai", "perfect", "perhap", "pl", "pleas", "plz",
	"previous", "proce", "question", "quick", "quickli", "realli", "rememb",
	"sai", "see", "shall", "show", "simpli", "someon", "someth", "sorri",
	"start", "step", "stuff", "sure", "take", "talk", "task", "tell", "thank",
	"thing", "think", "thx", "try", "ty", "ultrathink", "us", "wai", "want",
	"welcom", "wonder", "work", "would", "ye", "yeah", "yep", "yo", "yup",
}

// IsFiller reports whether term, a term as Analyze and QueryTerms give it
// (stemmed), is a filler word of a prompt: a word that says how the prompt
// is put, not what it is about (see fillerWords). Search still matches
// these words; a relevance floor should neither count them for a memory
// nor against it, so that "hey, quick task (ultrathink): ..." finds what
// the rest of the prompt finds.
func IsFiller(term string) bool {
	_, ok := slices.BinarySearch(fillerTerms, term)
	return ok
}
