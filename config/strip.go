package config

import (
	"regexp"
	"strings"
	"unicode/utf8"
)

// StripPhrases returns prompt without the keyword phrases given (as
// ApplyKeywords returns them), each removed wherever it occurs as it
// matches: ignoring case and runs of white space, as whole words. A
// keyword is an instruction to cairn, not words to look for: "(quick
// task) fix the cart total" searches for "fix the cart total". Each
// occurrence becomes a space; the rest of the prompt is kept as it is.
func StripPhrases(prompt string, phrases []string) string {
	for _, p := range phrases {
		words := strings.Fields(p)
		if len(words) == 0 {
			continue
		}
		for i, w := range words {
			words[i] = regexp.QuoteMeta(w)
		}
		re, err := regexp.Compile(`(?i)` + strings.Join(words, `\s+`))
		if err != nil {
			continue // quoted words always compile
		}
		var b strings.Builder
		last := 0
		for _, m := range re.FindAllStringIndex(prompt, -1) {
			if !wholeWords(prompt, m[0], m[1]) {
				continue
			}
			b.WriteString(prompt[last:m[0]])
			b.WriteByte(' ')
			last = m[1]
		}
		if last > 0 {
			b.WriteString(prompt[last:])
			prompt = b.String()
		}
	}
	return prompt
}

// wholeWords reports whether text[start:end] has no letter or digit
// touching either end where its own end is one (containsWords' rule).
func wholeWords(text string, start, end int) bool {
	before, _ := utf8.DecodeLastRuneInString(text[:start])
	after, _ := utf8.DecodeRuneInString(text[end:])
	first, _ := utf8.DecodeRuneInString(text[start:end])
	last, _ := utf8.DecodeLastRuneInString(text[start:end])
	return (start == 0 || !isWord(before) || !isWord(first)) && (end == len(text) || !isWord(after) || !isWord(last))
}
