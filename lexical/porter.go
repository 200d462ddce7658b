package lexical

// This file implements the Porter (1980) stemming algorithm exactly as
// SQLite's FTS5 "porter" tokenizer does (ext/fts5/fts5_tokenize.c), including
// its small departures from the textbook description: a suffix only matches
// when something precedes it, 'y' counts as a vowel in the (*v*) test whenever
// it is not the first letter, and tokens shorter than 3 or longer than 64
// bytes pass through unchanged.

// porterMaxToken is FTS5_PORTER_MAX_TOKEN: longer tokens are not stemmed.
const porterMaxToken = 64

// Stem returns the Porter (1980) stem of a lowercase ASCII word, matching
// SQLite FTS5's porter tokenizer output.
//
// Words shorter than 3 bytes or longer than 64 bytes are returned unchanged,
// as FTS5 does. Stem does not allocate when the word is already a stem. The
// input is treated as bytes; callers should pass lowercase ASCII letters
// (anything else is not an error, but the result is not meaningful).
func Stem(word string) string {
	ready()
	n := len(word)
	if n < 3 || n > porterMaxToken {
		return word
	}
	var a [porterMaxToken]byte
	copy(a[:], word)
	m := stemBytes(a[:n])
	if m == n && string(a[:n]) == word {
		return word
	}
	return string(a[:m])
}

// stemBytes stems b in place and returns the length of the stem, which is
// never longer than len(b).
func stemBytes(b []byte) int {
	n := len(b)
	if n < 3 || n > porterMaxToken {
		return n
	}

	// Step 1a.
	if b[n-1] == 's' {
		if b[n-2] == 'e' {
			if (n > 4 && b[n-4] == 's' && b[n-3] == 's') || (n > 3 && b[n-3] == 'i') {
				n -= 2 // sses -> ss, ies -> i
			} else {
				n-- // es -> e
			}
		} else if b[n-2] != 's' {
			n-- // s ->
		}
	}

	// Step 1b.
	removed := false
	switch b[n-2] {
	case 'e':
		if hasSuffix(b, n, "eed") {
			if mGt0(b[:n-3]) {
				n-- // eed -> ee
			}
		} else if hasSuffix(b, n, "ed") {
			if hasVowel(b[:n-2]) {
				n -= 2
				removed = true
			}
		}
	case 'n':
		if hasSuffix(b, n, "ing") {
			if hasVowel(b[:n-3]) {
				n -= 3
				removed = true
			}
		}
	}
	if removed {
		switch {
		case hasSuffix(b, n, "at"), hasSuffix(b, n, "bl"), hasSuffix(b, n, "iz"):
			b[n] = 'e'
			n++
		default:
			c := b[n-1]
			if n >= 2 && !isVowel(c, false) && c != 'l' && c != 's' && c != 'z' && c == b[n-2] {
				n--
			} else if mEq1(b[:n]) && cvc(b[:n]) {
				b[n] = 'e'
				n++
			}
		}
	}

	// Step 1c.
	if b[n-1] == 'y' && hasVowel(b[:n-1]) {
		b[n-1] = 'i'
	}

	// Steps 2, 3 and 4.
	n = applyRules(b, n, &step2Rules)
	n = applyRules(b, n, &step3Rules)
	n = applyRules(b, n, &step4Rules)

	// Step 5a.
	if b[n-1] == 'e' {
		s := b[:n-1]
		if mGt1(s) || (mEq1(s) && !cvc(s)) {
			n--
		}
	}

	// Step 5b.
	if n > 1 && b[n-1] == 'l' && b[n-2] == 'l' && mGt1(b[:n-1]) {
		n--
	}
	return n
}

// hasSuffix reports whether b[:n] ends with suf and has at least one byte
// before it (FTS5 never matches a suffix that is the whole word).
func hasSuffix(b []byte, n int, suf string) bool {
	return n > len(suf) && string(b[n-len(suf):n]) == suf
}

// isVowel reports whether c is a vowel; 'y' is one only when yIsVowel
// (that is, when it follows a consonant).
func isVowel(c byte, yIsVowel bool) bool {
	switch c {
	case 'a', 'e', 'i', 'o', 'u':
		return true
	case 'y':
		return yIsVowel
	}
	return false
}

// gobbleVC skips one [C]VC sequence of z and returns the index just past its
// final consonant, or 0 if z holds no such sequence. prevCons says whether the
// letter before z was a consonant.
func gobbleVC(z []byte, prevCons bool) int {
	cons := prevCons
	i := 0
	for ; i < len(z); i++ {
		cons = !isVowel(z[i], cons)
		if !cons {
			break
		}
	}
	for i++; i < len(z); i++ {
		cons = !isVowel(z[i], cons)
		if cons {
			return i + 1
		}
	}
	return 0
}

// mGt0 reports whether the measure of z is greater than 0.
func mGt0(z []byte) bool { return gobbleVC(z, false) != 0 }

// mGt1 reports whether the measure of z is greater than 1.
func mGt1(z []byte) bool {
	n := gobbleVC(z, false)
	return n != 0 && gobbleVC(z[n:], true) != 0
}

// mEq1 reports whether the measure of z is exactly 1.
func mEq1(z []byte) bool {
	n := gobbleVC(z, false)
	return n != 0 && gobbleVC(z[n:], true) == 0
}

// mGt1ST is the step 4 condition for "ion": m > 1 and the stem ends in s or t.
func mGt1ST(z []byte) bool {
	return len(z) > 0 && (z[len(z)-1] == 's' || z[len(z)-1] == 't') && mGt1(z)
}

// cvc is Porter's *o: z ends consonant-vowel-consonant and the final
// consonant is not w, x or y.
func cvc(z []byte) bool {
	if len(z) == 0 {
		return false
	}
	switch z[len(z)-1] {
	case 'w', 'x', 'y':
		return false
	}
	mask, cons := 0, false
	for _, c := range z {
		cons = !isVowel(c, cons)
		mask <<= 1
		if cons {
			mask |= 1
		}
	}
	return mask&7 == 5
}

// hasVowel is Porter's *v*, as FTS5 computes it: 'y' is a vowel anywhere
// except at the start.
func hasVowel(z []byte) bool {
	for i, c := range z {
		if isVowel(c, i > 0) {
			return true
		}
	}
	return false
}

// rule replaces suffix suf by rep when cond holds for the stem before suf.
type rule struct {
	suf, rep string
	cond     func([]byte) bool
}

// ruleTable groups rules by the second-to-last letter of their suffix, as
// FTS5 does; within a group the first suffix that matches decides, whether or
// not its condition holds.
type ruleTable [256][]rule

func applyRules(b []byte, n int, t *ruleTable) int {
	if n < 2 {
		return n
	}
	for _, r := range t[b[n-2]] {
		if hasSuffix(b, n, r.suf) {
			stem := n - len(r.suf)
			if r.cond(b[:stem]) {
				n = stem + copy(b[stem:], r.rep)
			}
			return n
		}
	}
	return n
}

func makeRules(rules ...rule) (t ruleTable) {
	for _, r := range rules {
		k := r.suf[len(r.suf)-2]
		t[k] = append(t[k], r)
	}
	return t
}

// The rules of steps 2 to 4, by the second-last letter of their suffix;
// filled by ready.
var step2Rules, step3Rules, step4Rules ruleTable

func makeStep2Rules() ruleTable {
	return makeRules(
		rule{"ational", "ate", mGt0},
		rule{"tional", "tion", mGt0},
		rule{"enci", "ence", mGt0},
		rule{"anci", "ance", mGt0},
		rule{"izer", "ize", mGt0},
		rule{"logi", "log", mGt0},
		rule{"bli", "ble", mGt0},
		rule{"alli", "al", mGt0},
		rule{"entli", "ent", mGt0},
		rule{"eli", "e", mGt0},
		rule{"ousli", "ous", mGt0},
		rule{"ization", "ize", mGt0},
		rule{"ation", "ate", mGt0},
		rule{"ator", "ate", mGt0},
		rule{"alism", "al", mGt0},
		rule{"iveness", "ive", mGt0},
		rule{"fulness", "ful", mGt0},
		rule{"ousness", "ous", mGt0},
		rule{"aliti", "al", mGt0},
		rule{"iviti", "ive", mGt0},
		rule{"biliti", "ble", mGt0},
	)
}

func makeStep3Rules() ruleTable {
	return makeRules(
		rule{"icate", "ic", mGt0},
		rule{"ative", "", mGt0},
		rule{"alize", "al", mGt0},
		rule{"iciti", "ic", mGt0},
		rule{"ical", "ic", mGt0},
		rule{"ful", "", mGt0},
		rule{"ness", "", mGt0},
	)
}

func makeStep4Rules() ruleTable {
	return makeRules(
		rule{"al", "", mGt1},
		rule{"ance", "", mGt1},
		rule{"ence", "", mGt1},
		rule{"er", "", mGt1},
		rule{"ic", "", mGt1},
		rule{"able", "", mGt1},
		rule{"ible", "", mGt1},
		rule{"ant", "", mGt1},
		rule{"ement", "", mGt1},
		rule{"ment", "", mGt1},
		rule{"ent", "", mGt1},
		rule{"ion", "", mGt1ST},
		rule{"ou", "", mGt1},
		rule{"ism", "", mGt1},
		rule{"ate", "", mGt1},
		rule{"iti", "", mGt1},
		rule{"ous", "", mGt1},
		rule{"ive", "", mGt1},
		rule{"ize", "", mGt1},
	)
}
