package lexical

import (
	"slices"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

func TestStem(t *testing.T) {
	t.Parallel()
	// Pairs from the Porter reference vocabulary, as stemmed by SQLite FTS5.
	tests := []struct{ in, want string }{
		{"caresses", "caress"}, {"ponies", "poni"}, {"ties", "ti"}, {"caress", "caress"},
		{"cats", "cat"}, {"feed", "feed"}, {"agreed", "agre"}, {"plastered", "plaster"},
		{"bled", "bled"}, {"motoring", "motor"}, {"sing", "sing"}, {"conflated", "conflat"},
		{"troubled", "troubl"}, {"sized", "size"}, {"hopping", "hop"}, {"tanned", "tan"},
		{"falling", "fall"}, {"hissing", "hiss"}, {"fizzed", "fizz"}, {"failing", "fail"},
		{"filing", "file"}, {"happy", "happi"}, {"sky", "sky"}, {"relational", "relat"},
		{"conditional", "condit"}, {"rational", "ration"}, {"valenci", "valenc"},
		{"hesitanci", "hesit"}, {"digitizer", "digit"}, {"conformabli", "conform"},
		{"radicalli", "radic"}, {"differentli", "differ"}, {"vileli", "vile"},
		{"analogousli", "analog"}, {"vietnamization", "vietnam"}, {"predication", "predic"},
		{"operator", "oper"}, {"feudalism", "feudal"}, {"decisiveness", "decis"},
		{"hopefulness", "hope"}, {"callousness", "callous"}, {"formaliti", "formal"},
		{"sensitiviti", "sensit"}, {"sensibiliti", "sensibl"}, {"triplicate", "triplic"},
		{"formative", "form"}, {"formalize", "formal"}, {"electriciti", "electr"},
		{"electrical", "electr"}, {"hopeful", "hope"}, {"goodness", "good"},
		{"revival", "reviv"}, {"allowance", "allow"}, {"inference", "infer"},
		{"airliner", "airlin"}, {"gyroscopic", "gyroscop"}, {"adjustable", "adjust"},
		{"defensible", "defens"}, {"irritant", "irrit"}, {"replacement", "replac"},
		{"adjustment", "adjust"}, {"dependent", "depend"}, {"adoption", "adopt"},
		{"homologou", "homolog"}, {"communism", "commun"}, {"activate", "activ"},
		{"angulariti", "angular"}, {"homologous", "homolog"}, {"effective", "effect"},
		{"bowdlerize", "bowdler"}, {"probate", "probat"}, {"rate", "rate"}, {"cease", "ceas"},
		{"controll", "control"}, {"roll", "roll"}, {"generalizations", "gener"},
		{"oscillators", "oscil"}, {"running", "run"}, {"tested", "test"}, {"testing", "test"},
		{"flaky", "flaki"},
		// Short words pass through; FTS5 quirks.
		{"", ""}, {"a", "a"}, {"is", "is"}, {"as", "as"}, {"ies", "ie"}, {"sses", "sse"},
		{"ated", "at"}, {"aed", "a"}, {"ying", "ying"},
		// Longer than 64 bytes: unchanged, as FTS5 does.
		{strings.Repeat("ab", 31) + "ing", strings.Repeat("ab", 31) + "ing"},
		{strings.Repeat("ab", 30) + "ing", strings.Repeat("ab", 30)},
	}
	for _, tt := range tests {
		if got := Stem(tt.in); got != tt.want {
			t.Errorf("Stem(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

func TestIsStopword(t *testing.T) {
	t.Parallel()
	for _, w := range strings.Fields(stopwordList) {
		if !IsStopword(w) {
			t.Errorf("IsStopword(%q) = false", w)
		}
	}
	set := 0
	for _, w := range stopwords {
		if w != "" {
			set++
		}
	}
	if n := len(strings.Fields(stopwordList)); n != set || n != 172 {
		t.Errorf("stopword list has %d words, set has %d", n, set)
	}
	for _, w := range []string{"", "The", "code", "test", "yourselvesx", "near", "ab"} {
		if IsStopword(w) {
			t.Errorf("IsStopword(%q) = true", w)
		}
	}
}

func TestAnalyze(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		in    string
		want  []string
		wantN int
	}{
		{"empty", "", nil, 0},
		{"only separators", " \t\n!?()[]{}<>\"'`~@#$%^&*+=|\\;,", nil, 0},
		{"camelCase", "getUserName", []string{"getusername", "get", "user", "name"}, 3},
		{"PascalCase", "UserName", []string{"username", "user", "name"}, 2},
		{"capitalized word", "Hello", []string{"hello"}, 1},
		{"acronym", "HTTPServer", []string{"httpserver", "http", "server"}, 2},
		{"acronyms", "XMLHttpRequest", []string{"xmlhttprequest", "xml", "http", "request"}, 3},
		{"acronym digit", "parseJSON2", []string{"parsejson2", "pars", "json2"}, 2},
		{"digit then word", "Base64Encode", []string{"base64encode", "base64", "encod"}, 2},
		{"digit then acronym", "HTTP2FA", []string{"http2fa"}, 1},
		{"acronym plural", "URLs", []string{"url"}, 1},
		{"acronym plural camel", "getURLs IDsFor", []string{"geturls", "get", "url", "idsfor", "id"}, 3},
		{"letter digit", "utf8 sha256 v2", []string{"utf8", "sha256", "v2"}, 3},
		{"one letter camel", "iPhone", []string{"iphone", "phone"}, 1},
		{"snake_case", "snake_case_name", []string{"snake_case_name", "snake", "case", "name"}, 3},
		{"dunder", "__init__", []string{"init"}, 1},
		{"SCREAMING_CASE", "MAX_TERM_LEN", []string{"max_term_len", "max", "term", "len"}, 3},
		{"dotted", "fmt.Errorf", []string{"fmt.errorf", "fmt", "errorf"}, 2},
		{"path", "internal/auth/session_test.go",
			[]string{"internal/auth/session_test.go", "intern", "auth", "session", "test", "go"}, 5},
		{"url", "http://example.com/path",
			[]string{"http", "example.com/path", "exampl", "com", "path"}, 4},
		{"kebab-case", "--dry-run my-flag-name",
			[]string{"dry-run", "dry", "run", "dryrun", "my-flag-name", "flag", "name"}, 4},
		{"hyphenated word", "de-stress e-mail", []string{"de-stress", "de", "stress", "destress", "e-mail", "mail", "email"}, 3},
		{"double colon", "std::string", []string{"std::string", "std", "string"}, 2},
		{"repeated joiner", "foo..bar", []string{"foo..bar", "foo", "bar"}, 2},
		{"mixed joiners split", "foo.-bar", []string{"foo", "bar"}, 2},
		{"version", "v1.2.3", []string{"v1.2.3", "v1", "2", "3"}, 3},
		{"go version", "go1.26", []string{"go1.26", "go1", "26"}, 2},
		{"utf-8", "UTF-8", []string{"utf-8", "utf", "8"}, 2},
		{"apostrophes", "Dagmar's don't it’s", []string{"dagmar"}, 1},
		{"trailing punctuation", "end. (see -flag) a - b, done!",
			[]string{"end", "see", "flag", "done"}, 4},
		{"stopwords", "The quick brown fox and the lazy dog",
			[]string{"quick", "brown", "fox", "lazi", "dog"}, 5},
		{"stemming", "flaky tests failing", []string{"flaki", "test", "fail"}, 3},
		{"repeats kept", "test tests Testing", []string{"test", "test", "test"}, 3},
		{"numbers", "error 404 on port 8080 in 2023",
			[]string{"error", "404", "port", "8080", "2023"}, 5},
		{"single characters", "x = 7", []string{"7"}, 1},
		{"compound of stopwords", "a.b is_a", nil, 0},
		{"compound with one part", "x.go", []string{"x.go", "go"}, 1},
		{"CJK", "日本語のテキスト",
			[]string{"日", "本", "語", "の", "テ", "キ", "ス", "ト"}, 8},
		{"CJK mixed", "東京abc 한국어", []string{"東", "京", "abc", "한", "국", "어"}, 6},
		{"CJK not joined", "foo.漢", []string{"foo", "漢"}, 2},
		{"diacritics", "Café naïve Ærøskøbing Straße jalapeño FAÇADE",
			[]string{"cafe", "naiv", "aeroskob", "strass", "jalapeno", "facad"}, 6},
		{"decomposed diacritic", "cafe\u0301 nai\u0308ve", []string{"cafe", "naiv"}, 2},
		{"diacritic camel", "ÉcoleNormale", []string{"ecolenormale", "ecol", "normal"}, 2},
		{"ligature camel", "getÆther", []string{"getaether", "get", "aether"}, 2},
		{"Latin Extended-A", "Łódź İstanbul Œuvre", []string{"lodz", "istanbul", "oeuvr"}, 3},
		{"fullwidth", "ＡＢＣ１２３", []string{"abc123"}, 1},
		{"Cyrillic", "Привет мир getИмя",
			[]string{"привет", "мир", "getимя", "get", "имя"}, 4},
		{"Greek", "ΣΟΦΙΑ", []string{"σοφια"}, 1},
		{"invalid UTF-8", "foo\xffbar\xc3 caf\xc3\xa9 \xe6\x97", []string{"foo", "bar", "cafe"}, 3},
		{"only invalid UTF-8", "\xff\xfe\xc3", nil, 0},
		{"long part truncated", strings.Repeat("a", 100), []string{strings.Repeat("a", 64)}, 1},
		{"long compound truncated", strings.Repeat("b", 40) + "_" + strings.Repeat("c", 40),
			[]string{strings.Repeat("b", 40) + "_" + strings.Repeat("c", 23),
				strings.Repeat("b", 40), strings.Repeat("c", 40)}, 2},
		{"truncated on rune boundary", strings.Repeat("й", 40), []string{strings.Repeat("й", 32)}, 1},
		{"truncated before split rune", "x" + strings.Repeat("й", 40), []string{"x" + strings.Repeat("й", 31)}, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, n := Analyze(tt.in, nil)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Analyze(%q) terms = %q, want %q", tt.in, got, tt.want)
			}
			if n != tt.wantN {
				t.Errorf("Analyze(%q) length = %d, want %d", tt.in, n, tt.wantN)
			}
		})
	}
}

func TestAnalyzeAppends(t *testing.T) {
	t.Parallel()
	dst := []string{"keep"}
	got, n := Analyze("fmt.Errorf", dst)
	if want := []string{"keep", "fmt.errorf", "fmt", "errorf"}; !slices.Equal(got, want) || n != 2 {
		t.Errorf("Analyze = %q, %d; want %q, 2", got, n, want)
	}
}

func TestQueryTerms(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []string
	}{
		{"empty", "", nil},
		{"only stopwords", "the AND or NOT", nil},
		{"hostile syntax", `"a" AND b NEAR( c* col:x ' OR 1=1 --`, []string{"near", "col:x", "col", "1"}},
		{"fts5 operators", `title:foo* ^bar + {baz qux} -quux "x y"`, []string{"title:foo", "titl", "foo", "bar", "baz", "qux", "quux"}},
		{"sql injection", `'; DROP TABLE memories; --`, []string{"drop", "tabl", "memori"}},
		{"dedup", "test tests Testing TEST", []string{"test"}},
		{"dedup compound", "getUserName user name getUserName", []string{"getusername", "get", "user", "name"}},
		{"first-seen order", "zebra apple zebra mango apple", []string{"zebra", "appl", "mango"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got := QueryTerms(tt.in)
			if !slices.Equal(got, tt.want) {
				t.Errorf("QueryTerms(%q) = %q, want %q", tt.in, got, tt.want)
			}
			for _, term := range got {
				if !isPlain(term) {
					t.Errorf("QueryTerms(%q) returned non-plain term %q", tt.in, term)
				}
			}
		})
	}
}

func TestQueryTermsManyDistinct(t *testing.T) {
	t.Parallel()
	// More than the linear-dedup threshold: exercises the map path.
	var b strings.Builder
	for i := range 100 {
		b.WriteString("word")
		b.WriteByte(byte('a' + i%26))
		b.WriteByte(byte('a' + i/26))
		b.WriteString(" wordaa ")
	}
	got := QueryTerms(b.String())
	if len(got) != 100 {
		t.Fatalf("QueryTerms returned %d terms, want 100", len(got))
	}
	if got[0] != "wordaa" || got[1] != "wordba" {
		t.Errorf("QueryTerms order: got %q", got[:2])
	}
}

// isPlain reports whether a term has only letters, digits, combining marks and
// joiners: nothing a query language could read as syntax except inside quotes.
func isPlain(term string) bool {
	for _, r := range term {
		if !unicode.IsLetter(r) && !unicode.IsDigit(r) && !unicode.IsMark(r) && !strings.ContainsRune("_./-:", r) {
			return false
		}
	}
	return term != ""
}

func TestLargeInput(t *testing.T) {
	t.Parallel()
	const size = 1 << 20
	tests := []struct {
		name string
		text string
	}{
		{"mixed text", strings.Repeat(benchText, size/len(benchText)+1)[:size]},
		{"one long word", strings.Repeat("a", size)},
		{"one long compound", strings.Repeat("ab_", size/3)},
		{"single letters joined", strings.Repeat("a_", size/2)},
		{"camel run", strings.Repeat("aB", size/2)},
		{"CJK", strings.Repeat("漢字", size/6)},
		{"separators", strings.Repeat(" .-", size/3)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			terms, n := Analyze(tt.text, nil)
			checkTerms(t, tt.text, terms, n)
		})
	}
	terms, _ := Analyze(strings.Repeat("ab_", size/3), nil)
	if len(terms) != size/3+1 || terms[0] != strings.Repeat("ab_", 22)[:64] {
		t.Errorf("long compound: %d terms, first %q", len(terms), terms[0])
	}
}

// checkTerms asserts the invariants every Analyze result must satisfy.
func checkTerms(t *testing.T, text string, terms []string, n int) {
	t.Helper()
	if n < 0 || n > len(terms) {
		t.Errorf("length %d out of range for %d terms", n, len(terms))
	}
	for _, term := range terms {
		switch {
		case term == "":
			t.Fatalf("Analyze(%q): empty term", text)
		case len(term) > MaxTermLen:
			t.Fatalf("Analyze(%q): term %q longer than %d bytes", text, term, MaxTermLen)
		case !utf8.ValidString(term):
			t.Fatalf("Analyze(%q): invalid UTF-8 term %q", text, term)
		case strings.IndexFunc(term, unicode.IsSpace) >= 0:
			t.Fatalf("Analyze(%q): term %q contains whitespace", text, term)
		case !isPlain(term):
			t.Fatalf("Analyze(%q): term %q contains syntax", text, term)
		}
	}
}

func TestFold(t *testing.T) {
	t.Parallel()
	if len(foldBase) != foldHi-foldLo {
		t.Fatalf("len(foldBase) = %d, want %d", len(foldBase), foldHi-foldLo)
	}
	for r := rune(foldLo); r < foldHi; r++ {
		s, up, ok := foldRune(r)
		if ok != unicode.IsLetter(r) {
			t.Errorf("foldRune(%q) ok = %v, IsLetter = %v", r, ok, unicode.IsLetter(r))
			continue
		}
		if !ok {
			continue
		}
		if up != unicode.IsUpper(r) {
			t.Errorf("foldRune(%q) upper = %v, want %v", r, up, unicode.IsUpper(r))
		}
		if s == "" || strings.Trim(s, asciiLetters) != "" {
			t.Errorf("foldRune(%q) = %q, want lowercase ASCII letters", r, s)
		}
		// Both cases of a letter fold alike.
		if lr := unicode.ToLower(r); lr != r && lr >= foldLo && lr < foldHi {
			if ls, _, _ := foldRune(lr); ls != s {
				t.Errorf("foldRune(%q) = %q but foldRune(%q) = %q", r, s, lr, ls)
			}
		}
	}
	for in, want := range map[rune]string{
		'é': "e", 'ü': "u", 'ñ': "n", 'ç': "c", 'ø': "o", 'å': "a", 'ß': "ss",
		'Ł': "l", 'ő': "o", 'Ž': "z", 'ğ': "g", 'ı': "i", 'İ': "i", 'ſ': "s",
	} {
		if got, _, _ := foldRune(in); got != want {
			t.Errorf("foldRune(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestQueryMatchesIndex(t *testing.T) {
	t.Parallel()
	for _, text := range []string{benchText, "getUserName in internal/auth/session_test.go", "Café 東京 v1.2.3"} {
		indexed, _ := Analyze(text, nil)
		for _, q := range QueryTerms(text) {
			if !slices.Contains(indexed, q) {
				t.Errorf("query term %q of %q not among indexed terms %q", q, text, indexed)
			}
		}
	}
}

func FuzzAnalyze(f *testing.F) {
	for _, s := range []string{
		"", benchText, "getUserName HTTPServer parseJSON2 URLs", "std::string v1.2.3 utf-8",
		"Dagmar's don’t", "日本語のテキスト 한국어", "Café naïve Straße cafe\u0301",
		"foo\xffbar\xc3", `"a" AND b NEAR( c* col:x ' OR 1=1 --`, strings.Repeat("й", 40),
		"ǅemal Ⱥb KELVIN\u212a", "a\u0301b", "x.\u0301y",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		terms, n := Analyze(text, nil)
		checkTerms(t, text, terms, n)
		checkRemembered(t, text)
		q := QueryTerms(text)
		checkTerms(t, text, q, 0)
		for _, term := range q {
			if !slices.Contains(terms, term) {
				t.Fatalf("QueryTerms(%q) term %q not produced by Analyze", text, term)
			}
		}
	})
}

// analyzeWith runs a on text and returns its terms and length.
func analyzeWith(a *analyzer, text string) ([]string, int) {
	a.arena, a.spans, a.n = a.arena[:0], a.spans[:0], 0
	a.run(text)
	var terms []string
	for _, sp := range a.spans {
		terms = append(terms, string(a.arena[sp.start:sp.end]))
	}
	return terms, a.n
}

// checkRemembered checks that the terms an analyzer remembers from
// earlier texts (see analyzer.remember) are the terms it would find anew:
// text analysed by a fresh analyzer, by one that analysed it before, and
// by one that analysed other texts first, gives the same terms.
func checkRemembered(t *testing.T, text string) {
	t.Helper()
	ready()
	want, wantN := analyzeWith(&analyzer{}, text)
	warm := &analyzer{}
	for _, other := range []string{benchText, "is the and of a running runs ran colour colours", text} {
		analyzeWith(warm, other)
	}
	if got, n := analyzeWith(warm, text); !slices.Equal(got, want) || n != wantN {
		t.Fatalf("%q: remembered terms %q (length %d), found anew %q (%d)", text, got, n, want, wantN)
	}
}

// Tried: words seen before as parts of compounds, stopwords, irregular
// forms and British spellings, the same word in other cases, and a word
// whose base form is a stopword.
func TestRememberedTermsAreFoundTerms(t *testing.T) {
	t.Parallel()
	for _, text := range []string{
		benchText, "Running runs ran; the THE The colour Colours colourful favourite",
		"getUserName get_user_name user-name USERNAME", "was were been being is are am",
		"e-mail email de-stress destress", "x y z 1 2 3 a an",
	} {
		checkRemembered(t, text)
	}
	// The pool's analyzers remember too: the second analysis of a text
	// gives what the first gave.
	first, n1 := Analyze(benchText, nil)
	second, n2 := Analyze(benchText, nil)
	if !slices.Equal(first, second) || n1 != n2 {
		t.Errorf("a second Analyze gave %q (%d), the first %q (%d)", second, n2, first, n1)
	}
}

const benchText = `Fixed the flaky TestSessionRefresh in internal/auth/session_test.go: the token cache
was shared between parallel subtests, so getUserName() sometimes returned a stale value.
The fix wraps cache access in a sync.Mutex and calls t.Cleanup(cache.Reset). See also
HTTPServer.ServeHTTP, which retries on 503 errors with exponential backoff (maxRetries=5,
base delay 250ms). Don't use os.Exit inside tests; prefer t.Fatalf("unexpected: %v", err).
Build with go1.26 and run "go test -race ./..." before pushing. The config lives at
~/.config/cairn/config.toml and the port defaults to 8080. Dagmar's note: parseJSON2 fails
on UTF-8 input with a BOM — strip it first. Remember: snake_case for SQL columns like
created_at, kebab-case for CLI flags like --dry-run, and std::string in the C++ bindings.
Performance regressed after v1.2.3 because the indexer re-tokenized every memory on startup.`

func BenchmarkAnalyze(b *testing.B) {
	text := strings.Repeat(benchText, 1024/len(benchText)+1)[:1024]
	dst := make([]string, 0, 512)
	b.SetBytes(int64(len(text)))
	b.ReportAllocs()
	for b.Loop() {
		dst, _ = Analyze(text, dst[:0])
	}
}

func BenchmarkQueryTerms(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		QueryTerms(`flaky getUserName test in internal/auth "session refresh" failing`)
	}
}

func BenchmarkStem(b *testing.B) {
	words := []string{"generalizations", "running", "tested", "oscillators", "flaky", "relational", "cat"}
	b.ReportAllocs()
	for b.Loop() {
		for _, w := range words {
			Stem(w)
		}
	}
}

// Irregular forms map to their base form and British spellings to the
// American ones before stemming; words that only look alike are kept.
func TestWordFormsShareTerms(t *testing.T) {
	t.Parallel()
	same := [][]string{
		{"met", "meet", "meeting"},
		{"went", "go"},
		{"children", "child"},
		{"colour", "color", "colours"},
		{"favourite", "favorite"},
		{"organisation", "organization"},
		{"organised", "organized"},
		{"analysed", "analyzed"},
		{"travelled", "traveled"},
		{"centre", "center"},
		{"wrote", "written", "write"},
		{"bought", "buy"},
		{"mice", "mouse"},
	}
	for _, group := range same {
		want := QueryTerms(group[0])
		for _, w := range group[1:] {
			if got := QueryTerms(w); !slices.Equal(got, want) {
				t.Errorf("QueryTerms(%q) = %q, want %q as for %q", w, got, want, group[0])
			}
		}
	}
	for _, pair := range [][2]string{{"hour", "hor"}, {"advise", "advize"}, {"promise", "promize"}, {"tour", "tor"}, {"bit", "bite"}, {"left", "leave"}} {
		if a, b := QueryTerms(pair[0]), QueryTerms(pair[1]); slices.Equal(a, b) {
			t.Errorf("%q and %q share terms %q; they are different words", pair[0], pair[1], a)
		}
	}
}

// QueryWords groups a compound's terms as one word, drops stopwords and
// repeats, and covers exactly QueryTerms.
func TestQueryWordsGroupCompounds(t *testing.T) {
	t.Parallel()
	ws := QueryWords("Does AuthService.Refresh drop the user_id? user_id again, and de-stress")
	var got [][]string
	var all []string
	for _, w := range ws {
		got = append(got, w.Terms)
		all = append(all, w.Terms...)
	}
	want := [][]string{{"authservice.refresh", "auth", "servic", "refresh"}, {"drop"}, {"user_id", "user", "id"}, {"de-stress", "de", "stress", "destress"}}
	if !slices.EqualFunc(got, want, slices.Equal) || !ws[0].Compound() || ws[1].Compound() {
		t.Fatalf("QueryWords = %q, want %q", got, want)
	}
	terms := QueryTerms("Does AuthService.Refresh drop the user_id? user_id again, and de-stress")
	for _, term := range terms {
		if !slices.Contains(all, term) {
			t.Errorf("term %q of QueryTerms is in no word of %q", term, got)
		}
	}
}

// A word is a name when it is capitalized inside a sentence or has a
// capital inside; the first word of a sentence is not.
func TestQueryWordsTellNames(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, w := range QueryWords("Where did Dagmar move from? Leopold asked. Fix AuthService in the SMTP app, then the parser.") {
		names[w.Terms[0]] = w.Name
	}
	for term, want := range map[string]bool{"dagmar": true, "leopold": false, "fix": false, "authservice": true, "smtp": true, "app": false, "parser": false, "move": false} {
		if got, ok := names[term]; !ok || got != want {
			t.Errorf("%q: name %v (found %v), want %v; all %v", term, got, ok, want, names)
		}
	}
}

// Filler words are known by their terms, inflections too; words that only
// look like one (stemmed alike, or often a memory's subject) are not.
func TestIsFillerKnowsPromptFillerAndNothingElse(t *testing.T) {
	t.Parallel()
	for _, w := range []string{"thanks", "Thank", "please", "continuing", "lets", "ultrathink", "helped", "mentioned", "conversations", "tasks", "quickly"} {
		terms := QueryTerms(w)
		if len(terms) != 1 || !IsFiller(terms[0]) {
			t.Errorf("%q (terms %v) is not filler", w, terms)
		}
	}
	for _, w := range []string{"resume", "May", "Excel", "probability", "basic", "Go", "sorting", "bits", "hard", "chat", "recall", "deploy", "webhook", "signing", "key", "test", "staging"} {
		for _, term := range QueryTerms(w) {
			if IsFiller(term) {
				t.Errorf("%q (term %q) is filler", w, term)
			}
		}
	}
}

// The terms IsFiller knows are exactly the terms of fillerWords, sorted.
func TestFillerTermsAreTheFillerWords(t *testing.T) {
	t.Parallel()
	var want []string
	for _, w := range strings.Fields(fillerWords) {
		terms, _ := Analyze(w, nil)
		want = append(want, terms...)
	}
	slices.Sort(want)
	want = slices.Compact(want)
	if !slices.Equal(fillerTerms, want) {
		t.Errorf("fillerTerms = %q\nwant the terms of fillerWords %q", fillerTerms, want)
	}
}
