package config

import "github.com/cairn-dev/cairn"

// StripPhrases returns prompt without the keyword phrases given: see
// cairn.StripPhrases, where the settings' keywords are matched.
func StripPhrases(prompt string, phrases []string) string { return cairn.StripPhrases(prompt, phrases) }
