// Package lexical turns text into index terms for cairn's full-text search.
//
// The rules are code-aware, so that agents can find code identifiers by their
// parts and English by its stems. The same rules serve documents ([Analyze])
// and queries ([QueryTerms]), so every query term can match an indexed term.
//
//  1. Text is lowercased (Unicode-aware). Latin-1 Supplement and Latin
//     Extended-A letters fold to ASCII (é→e, ü→u, ñ→n, ç→c, ø→o, å→a,
//     ß→ss, æ→ae, œ→oe, þ→th, ...), fullwidth ASCII letters and digits fold
//     to ASCII, and combining marks that follow an ASCII letter are dropped
//     (so decomposed "e\u0301" is "e" too).
//  2. Text is cut into chunks at whitespace and at every character that is
//     not a letter, a digit or a joiner ('_', '.', '/', '-', ':'). A joiner,
//     or a run of one joiner repeated ("::", "__"), only joins when it has a
//     letter or digit on both sides: "fmt.Errorf", "internal/auth/x_test.go",
//     "snake_case", "v1.2.3", "utf-8" and "std::string" are single chunks,
//     while "end." "-flag" and "a - b" are not compounds. Apostrophes (' and
//     ’) split: "Dagmar's" gives "dagmar" and the stopword "s". Invalid
//     UTF-8 bytes are separators.
//  3. Each chunk is split into parts at joiners and then at camelCase
//     boundaries: "getUserName" → get, user, name; "HTTPServer" → http,
//     server; "parseJSON2" → parse, json2; "Base64Encode" → base64, encode;
//     "URLs" and "IDs" stay whole. Letter-digit boundaries do not split
//     ("utf8", "sha256", "v2").
//  4. A part that is a stopword ([IsStopword]) is dropped. A part made only
//     of ASCII letters is Porter-stemmed ([Stem]); other parts are kept as
//     they are. A one-letter part is dropped; a one-digit part is kept.
//  5. A chunk with a joiner or a camelCase split is a compound: its whole
//     lowercased text, not stemmed, is emitted just before its parts, but
//     only if at least one of its parts survives rule 4.
//     A compound of two parts joined by one hyphen is also emitted as one word, stemmed
//     ("de-stress" → destress, "e-mail" → email), so that either spelling
//     finds the other; it does not count toward the length.
//  6. CJK characters (Han ideographs, Hiragana, Katakana, Hangul syllables)
//     are each a term of their own, not stemmed and never dropped.
//  7. Numbers are kept ("2023", "404", "8080").
//
// Every term is non-empty valid UTF-8 without whitespace, at most
// [MaxTermLen] bytes (longer parts and compounds are truncated on a UTF-8
// boundary; parts longer than that are not stemmed). Terms contain only
// letters, digits, combining marks and, in compounds, the joiner characters;
// they never contain quotes, parentheses, '*', '^', '+' or whitespace.
package lexical

import (
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Version identifies these rules. It changes whenever a text's terms may
// change, so that an index made by other rules is known and rebuilt.
// Version 2 added word forms (see baseForm).
const Version = 2

// MaxTermLen is the longest term in bytes; longer tokens are truncated to it
// (on a UTF-8 boundary).
const MaxTermLen = 64

// Analyze appends the index terms of text to dst (in text order, repeats
// kept) and returns dst and the document length: the number of word-part
// tokens that are not stopwords (compound tokens do not count toward length).
//
// Precisely, the length counts the part terms appended (stemmed words,
// numbers, other parts, CJK characters); it excludes compounds, stopwords and
// dropped one-letter parts, so it equals the number of appended terms minus
// the number of compounds. A compound is appended immediately before its own
// parts. The terms appended by one call share a single backing allocation.
// Analyze never panics, whatever the input.
func Analyze(text string, dst []string) ([]string, int) {
	ready()
	a := getAnalyzer()
	a.run(text)
	n := a.n
	if len(a.spans) > 0 {
		s := string(a.arena)
		dst = slices.Grow(dst, len(a.spans))
		for _, sp := range a.spans {
			dst = append(dst, s[sp.start:sp.end])
		}
	}
	putAnalyzer(a)
	return dst, n
}

// QueryTerms returns the distinct terms of a user query, in first-seen order,
// using the same rules as Analyze (so every query term can match an indexed
// term). It never returns syntax: any characters are safe.
//
// The result is exactly Analyze's terms with repeats removed (nil if there
// are none): operators, quotes, parentheses, '*', column filters and the like
// are separators or dropped, and "AND", "OR", "NOT" are stopwords. Compound
// terms may contain the joiners '_', '.', '/', '-' and ':', so a caller that
// passes terms to a query language (such as FTS5 MATCH) must still quote each
// term as a string; terms never contain '"' or whitespace.
func QueryTerms(q string) []string {
	ready()
	a := getAnalyzer()
	a.run(q)
	var out []string
	if len(a.spans) > 0 {
		s := string(a.arena)
		out = make([]string, 0, len(a.spans))
		if len(a.spans) <= 32 {
		next:
			for _, sp := range a.spans {
				t := s[sp.start:sp.end]
				for _, u := range out {
					if u == t {
						continue next
					}
				}
				out = append(out, t)
			}
		} else {
			seen := make(map[string]struct{}, len(a.spans))
			for _, sp := range a.spans {
				t := s[sp.start:sp.end]
				if _, ok := seen[t]; !ok {
					seen[t] = struct{}{}
					out = append(out, t)
				}
			}
		}
	}
	putAnalyzer(a)
	return out
}

// QueryWord is one word of a query and the terms it gives: one term for a
// plain word, or for a compound ("AuthService.Refresh", "user_id",
// "de-stress") the whole compound first, then its parts, then its
// hyphen-joined spelling when it has one.
type QueryWord struct {
	Terms []string
	// Name reports that the word is written as a name: capitalized where
	// a sentence does not start ("ask Dagmar"), or with a capital inside
	// ("AuthService", "SMTP"). A name the project has never seen says
	// more about a prompt than a plain word it has not seen.
	Name bool
}

// Compound reports whether the word is a compound, whose first term is the
// whole and the others its parts.
func (w QueryWord) Compound() bool { return len(w.Terms) > 1 }

// QueryWords returns the words of a user query that give terms, in order,
// analysed by the same rules as Analyze: every term of QueryTerms(q) is in
// one or more of them. A word repeated in the query is returned once; a
// stopword gives no word. Like QueryTerms it never returns syntax.
func QueryWords(q string) []QueryWord {
	ready()
	a := getAnalyzer()
	a.tracking = true
	a.run(q)
	var out []QueryWord
	if len(a.spans) > 0 {
		s := string(a.arena)
		seen := map[string]int{}
		for i, start := range a.words {
			end := len(a.spans)
			if i+1 < len(a.words) {
				end = a.words[i+1]
			}
			if start >= end {
				continue
			}
			w := QueryWord{Terms: make([]string, 0, end-start)}
			for _, sp := range a.spans[start:end] {
				w.Terms = append(w.Terms, s[sp.start:sp.end])
			}
			w.Name = a.names[i]
			key := strings.Join(w.Terms, " ")
			if j, ok := seen[key]; ok {
				out[j].Name = out[j].Name || w.Name
				continue
			}
			seen[key] = len(out)
			out = append(out, w)
		}
	}
	putAnalyzer(a)
	return out
}

// Character kinds, recorded for every byte of the current chunk.
const (
	kSep   uint8 = iota // separator (ASCII table only)
	kLower              // lowercase letter
	kUpper              // uppercase or titlecase letter (before lowercasing)
	kDigit              // ASCII digit
	kOther              // uncased letter or non-ASCII digit
	kJoin               // joiner

	// kCont marks a byte that continues the previous character: the trailing
	// bytes of a multi-byte rune, the second letter of a two-letter folding,
	// and combining marks.
	kCont uint8 = 0x80
)

// asciiKind is the kind of each ASCII byte; filled by ready.
var asciiKind [utf8.RuneSelf]uint8

// tablesOnce fills the package's tables on first use rather than at
// start-up: a cairn process that only forwards a command to a server never
// tokenizes, and a table built at start-up costs it page faults.
var tablesOnce sync.Once

// ready fills the tables; every exported entry point calls it first.
func ready() { tablesOnce.Do(fillTables) }

func fillTables() {
	asciiKind = makeASCIIKind()
	stopwords = makeStopwords()
	step2Rules, step3Rules, step4Rules = makeStep2Rules(), makeStep3Rules(), makeStep4Rules()
	forms = makeForms()
}

func makeASCIIKind() (t [utf8.RuneSelf]uint8) {
	for c := 'a'; c <= 'z'; c++ {
		t[c] = kLower
	}
	for c := 'A'; c <= 'Z'; c++ {
		t[c] = kUpper
	}
	for c := '0'; c <= '9'; c++ {
		t[c] = kDigit
	}
	for _, c := range "_./-:" {
		t[c] = kJoin
	}
	return t
}

type span struct{ start, end int }

// analyzer holds the reusable buffers of one Analyze or QueryTerms call.
type analyzer struct {
	buf       []byte  // current chunk, lowercased and folded
	kind      []uint8 // kind of each byte of buf
	upper     bool    // buf holds an uppercase letter
	join      bool    // buf holds a joiner
	lastASCII bool    // the last character added to buf was (folded to) ASCII

	arena []byte // text of all terms so far
	spans []span // terms, as ranges of arena
	n     int    // document length so far

	scratch []byte // hyphen-joined spelling of the current chunk

	// stems maps a part of lowercase ASCII letters to its term, "" for a
	// stopword: what part found for it before (see remember). It outlives
	// the call, with the analyzer in the pool.
	stems map[string]string

	// words, when tracking, holds the index in spans of the first term of
	// each word (chunk or CJK character) that emitted terms, and names
	// whether it is written as a name; midSentence is false at the start
	// of the text and after a sentence's end.
	tracking    bool
	words       []int
	names       []bool
	midSentence bool
}

var pool = sync.Pool{New: func() any { return new(analyzer) }}

func getAnalyzer() *analyzer { return pool.Get().(*analyzer) }

func putAnalyzer(a *analyzer) {
	if cap(a.arena) > 1<<20 || cap(a.buf) > 1<<16 || cap(a.spans) > 1<<14 {
		return // don't keep the buffers of a huge input alive
	}
	a.buf, a.kind, a.arena, a.spans = a.buf[:0], a.kind[:0], a.arena[:0], a.spans[:0]
	a.upper, a.join, a.lastASCII, a.n = false, false, false, 0
	a.tracking, a.words, a.names, a.midSentence = false, a.words[:0], a.names[:0], false
	pool.Put(a)
}

func (a *analyzer) run(text string) {
	for i := 0; i < len(text); {
		c := text[i]
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRuneInString(text[i:])
			a.addRune(r)
			i += size
			continue
		}
		switch k := asciiKind[c]; k {
		case kLower, kDigit:
			a.buf = append(a.buf, c)
			a.kind = append(a.kind, k)
			a.lastASCII = true
		case kUpper:
			a.buf = append(a.buf, c+('a'-'A'))
			a.kind = append(a.kind, kUpper)
			a.upper, a.lastASCII = true, true
		case kJoin:
			i = a.joiner(text, i)
			continue
		default:
			a.flush()
			if c == '!' || c == '?' || c == '\n' {
				a.midSentence = false
			}
		}
		i++
	}
	a.flush()
}

// joiner handles the run of joiner text[i] starting at i and returns the
// index after it. The run joins only if it is a single character repeated
// and has a letter or digit on both sides.
func (a *analyzer) joiner(text string, i int) int {
	c := text[i]
	j := i + 1
	for j < len(text) && text[j] == c {
		j++
	}
	if c == '.' && (j == len(text) || !isWordStart(text[j:])) {
		defer func() { a.midSentence = false }() // after the flush below
	}
	if len(a.buf) > 0 && j < len(text) && isWordStart(text[j:]) {
		for ; i < j; i++ {
			a.buf = append(a.buf, c)
			a.kind = append(a.kind, kJoin)
		}
		a.join = true
		a.lastASCII = true
		return j
	}
	a.flush()
	return j
}

// isWordStart reports whether s starts with a character that can continue a
// chunk after a joiner: a letter or digit that is not CJK.
func isWordStart(s string) bool {
	if c := s[0]; c < utf8.RuneSelf {
		k := asciiKind[c]
		return k == kLower || k == kUpper || k == kDigit
	}
	r, _ := utf8.DecodeRuneInString(s)
	if _, _, ok := foldRune(r); ok {
		return true
	}
	return !isCJK(r) && (unicode.IsLetter(r) || unicode.IsDigit(r))
}

// addRune handles a non-ASCII rune (utf8.RuneError for invalid bytes).
func (a *analyzer) addRune(r rune) {
	if s, up, ok := foldRune(r); ok {
		k := kLower
		switch {
		case up:
			k = kUpper
			a.upper = true
		case s[0] <= '9':
			k = kDigit
		}
		a.buf = append(a.buf, s...)
		a.kind = append(a.kind, k)
		for range len(s) - 1 {
			a.kind = append(a.kind, k|kCont)
		}
		a.lastASCII = true
		return
	}
	if isCJK(r) {
		a.flush()
		if a.tracking {
			a.words = append(a.words, len(a.spans))
			a.names = append(a.names, false)
		}
		start := len(a.arena)
		a.arena = utf8.AppendRune(a.arena, r)
		a.spans = append(a.spans, span{start, len(a.arena)})
		a.n++
		return
	}
	if unicode.IsLetter(r) || unicode.IsDigit(r) {
		k := kOther
		switch {
		case unicode.IsUpper(r) || unicode.IsTitle(r):
			k = kUpper
			a.upper = true
		case unicode.IsLower(r):
			k = kLower
		}
		a.addChar(unicode.ToLower(r), k)
		return
	}
	if unicode.IsMark(r) {
		// A combining mark continues the character before it, except that
		// marks on ASCII letters are dropped (decomposed diacritics).
		if len(a.buf) > 0 && !a.lastASCII {
			k := a.kind[len(a.kind)-1] | kCont
			n := len(a.buf)
			a.buf = utf8.AppendRune(a.buf, r)
			for range len(a.buf) - n {
				a.kind = append(a.kind, k)
			}
		}
		return
	}
	a.flush()
}

// addChar appends the lowercase rune r of kind k to the chunk.
func (a *analyzer) addChar(r rune, k uint8) {
	if r < utf8.RuneSelf {
		// For example the Kelvin sign lowercases to 'k'.
		a.buf = append(a.buf, byte(r))
		a.kind = append(a.kind, k)
		a.lastASCII = true
		return
	}
	n := len(a.buf)
	a.buf = utf8.AppendRune(a.buf, r)
	a.kind = append(a.kind, k)
	for range len(a.buf) - n - 1 {
		a.kind = append(a.kind, k|kCont)
	}
	a.lastASCII = false
}

// isCJK reports whether r is a Han ideograph, Hiragana, Katakana or a Hangul
// syllable, which are indexed one character per term.
func isCJK(r rune) bool {
	switch {
	case r < 0x3005:
		return false
	case r <= 0x3007: // 々 〆 〇
		return true
	case r >= 0x3040 && r <= 0x30FF: // Hiragana, Katakana
		return r != 0x30FB && unicode.IsLetter(r)
	case r >= 0x31F0 && r <= 0x31FF: // Katakana phonetic extensions
		return true
	case r >= 0x3400 && r <= 0x4DBF, r >= 0x4E00 && r <= 0x9FFF: // Han
		return unicode.IsLetter(r)
	case r >= 0xAC00 && r <= 0xD7A3: // Hangul syllables
		return true
	case r >= 0xF900 && r <= 0xFAFF: // Han compatibility
		return unicode.IsLetter(r)
	case r >= 0xFF66 && r <= 0xFF9D: // halfwidth Katakana
		return true
	case r >= 0x20000 && r <= 0x3FFFF: // Han supplementary planes
		return unicode.IsLetter(r)
	}
	return false
}

// innerUpper reports whether a chunk has an uppercase letter after its
// first character ("AuthService", "SMTP", "iOS").
func innerUpper(kind []uint8) bool {
	for _, k := range kind[1:] {
		if k == kUpper {
			return true
		}
	}
	return false
}

// flush emits the terms of the current chunk and starts a new one.
func (a *analyzer) flush() {
	if len(a.buf) == 0 {
		return
	}
	if a.tracking {
		name := a.upper && (a.midSentence || innerUpper(a.kind))
		if n := len(a.words); n == 0 || a.words[n-1] != len(a.spans) {
			a.words = append(a.words, len(a.spans))
			a.names = append(a.names, name)
		} else {
			a.names[n-1] = name // the last word gave no term
		}
		a.midSentence = true
	}
	if !a.upper && !a.join {
		a.part(a.buf)
	} else {
		a.compound()
	}
	a.buf, a.kind = a.buf[:0], a.kind[:0]
	a.upper, a.join, a.lastASCII = false, false, false
}

// compound emits the parts of a chunk that has joiners or uppercase letters,
// preceded by the chunk itself if it splits and a part survives.
func (a *analyzer) compound() {
	buf, kind := a.buf, a.kind
	slot := len(a.spans)
	parts, kept := 0, 0
	emit := func(p []byte) {
		parts++
		if a.part(p) {
			kept++
		}
	}
	next := func(p int) int {
		for p++; p < len(kind) && kind[p]&kCont != 0; p++ {
		}
		return p
	}
	for i := 0; i < len(buf); {
		j := i
		for j < len(buf) && kind[j] != kJoin {
			j++
		}
		// Split buf[i:j] at camelCase boundaries.
		start := i
		for p := next(i); p < j; p = next(p) {
			if kind[p] != kUpper {
				continue
			}
			split := false
			switch kind[p-1] &^ kCont {
			case kLower: // getUser
				split = true
			case kUpper, kDigit: // HTTPServer, Base64Encode, but not URLs
				if q := next(p); q < j && kind[q] == kLower {
					plural := buf[q] == 's' && (q+1 == j || kind[q+1] != kLower)
					split = !plural
				}
			}
			if split {
				emit(buf[start:p])
				start = p
			}
		}
		emit(buf[start:j])
		for j < len(buf) && kind[j] == kJoin {
			j++
		}
		i = j
	}
	if kept == 0 || (parts < 2 && !a.join) {
		return
	}
	start := len(a.arena)
	a.arena = append(a.arena, truncate(buf)...)
	a.spans = slices.Insert(a.spans, slot, span{start, len(a.arena)})
	a.hyphenJoined(buf, kind)
}

// hyphenJoined emits the parts of a hyphenated word written as one word
// ("de-stress" → destress, "e-mail" → email, "re-run" → rerun), so that
// either spelling finds the other. It does not count toward the length.
func (a *analyzer) hyphenJoined(buf []byte, kind []uint8) {
	joined := a.scratch[:0]
	hyphens := 0
	for i, c := range buf {
		if kind[i] == kJoin {
			if c != '-' {
				return
			}
			hyphens++
			continue
		}
		if kind[i]&^kCont == kUpper {
			return
		}
		joined = append(joined, c)
	}
	a.scratch = joined
	if hyphens == 1 && len(joined) <= MaxTermLen && a.part(joined) {
		a.n--
	}
}

// part emits one lowercase part, applying the stopword, stemming and
// one-letter rules, and reports whether a term was emitted.
func (a *analyzer) part(p []byte) bool {
	if len(p) == 1 {
		if p[0] < '0' || p[0] > '9' {
			return false
		}
	} else if p[0] >= utf8.RuneSelf {
		if r, size := utf8.DecodeRune(p); size == len(p) && unicode.IsLetter(r) {
			return false
		}
	}
	letters := true
	for _, c := range p {
		if c-'a' >= 26 {
			letters = false
			break
		}
	}
	start := len(a.arena)
	if !letters || len(p) > MaxTermLen {
		a.arena = append(a.arena, truncate(p)...)
	} else if t, ok := a.stems[string(p)]; ok {
		if t == "" {
			return false // a stopword
		}
		a.arena = append(a.arena, t...)
	} else {
		word := p
		if p = baseForm(p); isStop(p) {
			a.remember(word, "")
			return false
		}
		a.arena = append(a.arena, p...)
		a.arena = a.arena[:start+stemBytes(a.arena[start:])]
		if len(a.arena) > start { // "" stands for a stopword
			a.remember(word, string(a.arena[start:]))
		}
	}
	a.spans = append(a.spans, span{start, len(a.arena)})
	a.n++
	return true
}

// maxStems bounds the words an analyzer remembers the terms of.
const maxStems = 1 << 14

// remember records the term of word, a part of lowercase ASCII letters
// ("" for a stopword): words recur, and finding a word's term (base
// forms, stopwords, stemming) costs more than looking it up.
func (a *analyzer) remember(word []byte, term string) {
	if a.stems == nil || len(a.stems) >= maxStems {
		a.stems = make(map[string]string, 256)
	}
	a.stems[string(word)] = term
}

// truncate cuts p to at most MaxTermLen bytes on a UTF-8 boundary.
func truncate(p []byte) []byte {
	if len(p) <= MaxTermLen {
		return p
	}
	n := MaxTermLen
	for n > 0 && p[n]&0xC0 == 0x80 {
		n--
	}
	return p[:n]
}
