package redact

import (
	"fmt"
	"strings"
	"sync"
	"testing"
	"unicode/utf8"
	"unsafe"
)

// checkInvariants verifies what every result of String must satisfy.
func checkInvariants(t *testing.T, in, out string, fs []Finding) {
	t.Helper()
	if len(fs) == 0 && out != in {
		t.Fatalf("no findings but output changed:\nin  %q\nout %q", in, out)
	}
	if len(fs) > 0 && out == in {
		t.Fatalf("findings %v but output unchanged: %q", fs, in)
	}
	for k, f := range fs {
		if f.Start < 0 || f.End > len(in) || f.Start >= f.End || f.Kind == "" {
			t.Fatalf("bad finding %+v for input of %d bytes", f, len(in))
		}
		if k > 0 && fs[k-1].Start > f.Start {
			t.Fatalf("findings not sorted: %v", fs)
		}
	}
	if utf8.ValidString(in) && !utf8.ValidString(out) {
		t.Fatalf("valid input gave invalid UTF-8 output:\nin  %q\nout %q", in, out)
	}
	again, fs2 := String(out)
	if again != out || len(fs2) != 0 {
		t.Fatalf("not idempotent:\nin   %q\nout  %q\nout2 %q\nfindings2 %v", in, out, again, fs2)
	}
	if Contains(in) != (len(fs) > 0) {
		t.Fatalf("Contains disagrees with String for %q", in)
	}
}

func TestSecretCorpus(t *testing.T) {
	cases := secretCases()
	kinds := map[string]bool{}
	for _, c := range cases {
		kinds[c.kind] = true
	}
	if len(cases) < 30 || len(kinds) < 30 {
		t.Fatalf("corpus too small: %d cases, %d kinds", len(cases), len(kinds))
	}
	seen := map[string]bool{}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if seen[c.text] {
				t.Fatalf("duplicate case text")
			}
			seen[c.text] = true
			out, fs := String(c.text)
			checkInvariants(t, c.text, out, fs)
			if strings.Contains(out, c.secret) {
				t.Fatalf("secret survived:\nin  %q\nout %q", c.text, out)
			}
			at := strings.Index(c.text, c.secret)
			ok := false
			for _, f := range fs {
				if f.Kind == c.kind && f.Start <= at && at+len(c.secret) <= f.End {
					ok = true
				}
			}
			if !ok {
				t.Fatalf("want a %s finding covering [%d,%d), got %v\nout %q", c.kind, at, at+len(c.secret), fs, out)
			}
			if !strings.Contains(out, "[REDACTED:"+c.kind+"]") {
				t.Fatalf("marker for %s missing: %q", c.kind, out)
			}
		})
	}
}

// TestSecretCorpusContext checks that each secret is found wherever it sits:
// alone, at the very start, at the very end, and with neighbours.
func TestSecretCorpusContext(t *testing.T) {
	for _, c := range secretCases() {
		for _, text := range []string{c.text, c.text + "\n" + c.text, "x\n" + c.text + "\nmore text after it\n"} {
			out, fs := String(text)
			checkInvariants(t, text, out, fs)
			if strings.Contains(out, c.secret) {
				t.Errorf("%s: secret survived in %q", c.name, out)
			}
		}
	}
}

func TestLookalikes(t *testing.T) {
	ls := lookalikes()
	if len(ls) < 30 {
		t.Fatalf("only %d look-alikes", len(ls))
	}
	for _, l := range ls {
		out, fs := String(l)
		if out != l || len(fs) != 0 {
			t.Errorf("look-alike changed:\nin  %q\nout %q\n%v", l, out, fs)
		}
		if Contains(l) {
			t.Errorf("Contains(%q) = true", l)
		}
	}
	// All of them together, as one document.
	doc := strings.Join(ls, "\n")
	if out, _ := String(doc); out != doc {
		t.Errorf("joined look-alikes changed")
	}
}

func TestSameStringReturned(t *testing.T) {
	in := strings.Repeat("plain text with nothing secret; ", 10) + lookalikes()[0]
	out, fs := String(in)
	if fs != nil || out != in {
		t.Fatalf("unexpected result %q %v", out, fs)
	}
	if unsafe.StringData(out) != unsafe.StringData(in) {
		t.Fatalf("text without secrets must be returned as the same string")
	}
}

func TestEmptyAndTiny(t *testing.T) {
	for _, in := range []string{"", " ", "=", ":", "://", "a=b", "-----BEGIN ", "eyJ", "<", "<private", "</private>", "\xff", "password=", "token:"} {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
	}
	if out, fs := String(""); out != "" || fs != nil {
		t.Fatalf("empty: %q %v", out, fs)
	}
}

func TestPrivateSpans(t *testing.T) {
	tests := []struct{ in, want string }{
		{"a <private>hide me</private> b", "a  b"},
		{"<private>x</private>", ""},
		{"keep<private>one\ntwo\nthree</private>keep", "keepkeep"},
		{"a <PRIVATE>x</Private> b <PrIvAtE>y</pRiVaTe> c", "a  b  c"},
		{"a <private>outer <private>inner</private> still hidden</private> b", "a  b"},
		{"a <private>unclosed\neverything after", "a "},
		{"a <private>x</private> b </private> c", "a  b </private> c"},
		{"stray </private> close only", "stray </private> close only"},
		{"<pri<private>x</private>vate>hidden", ""},
		{"text <private>multi\r\nline with ghp_ not a token</private>.", "text ."},
		{"<private></private>", ""},
		{"<private >not a tag</private>", "<private >not a tag</private>"},
	}
	for _, tt := range tests {
		out, fs := String(tt.in)
		checkInvariants(t, tt.in, out, fs)
		if out != tt.want {
			t.Errorf("String(%q) = %q, want %q", tt.in, out, tt.want)
		}
		for _, f := range fs {
			if f.Kind != "private-span" {
				t.Errorf("unexpected %v", f)
			}
			if !hasPrefixFold(tt.in[f.Start:], "<pri") {
				t.Errorf("span %v does not start at a tag in %q", f, tt.in)
			}
		}
	}
	// Offsets of secrets after a removed private span point into the original.
	tok := cat("gh", "p_", alnum(36, 900))
	in := "x <private>hidden</private> y " + tok + " z"
	out, fs := String(in)
	if out != "x  y [REDACTED:github-token] z" {
		t.Fatalf("got %q", out)
	}
	if len(fs) != 2 || fs[0].Kind != "private-span" || in[fs[1].Start:fs[1].End] != tok {
		t.Fatalf("bad findings %v", fs)
	}
	// A secret that only appears once a private span is removed is redacted.
	key := cat("AK", "IA", "IOSFODNN7", "EXAMPLE")
	in = key[:8] + "<private>x</private>" + key[8:]
	out, fs = String(in)
	checkInvariants(t, in, out, fs)
	if out != "[REDACTED:aws-access-key]" {
		t.Fatalf("joined secret: %q %v", out, fs)
	}
}

func TestOffsetsSeveralSecrets(t *testing.T) {
	gh := cat("gh", "p_", alnum(36, 901))
	aws := cat("AK", "IA", "IOSFODNN7", "EXAMPLE")
	jwt := cat("ey", "JhbGciOiJIUzI1NiJ9", ".", "eyJzdWIiOiJmYWtlIn0", ".", b64url(43, 902))
	in := gh + " then PASSWORD=hunter2-fake and\npostgres://u:fakepw@db/x then " + aws + "\n" + jwt
	out, fs := String(in)
	checkInvariants(t, in, out, fs)
	want := []struct{ kind, text string }{
		{"github-token", gh},
		{"password-assignment", "hunter2-fake"},
		{"url-credentials", "u:fakepw"},
		{"aws-access-key", aws},
		{"jwt", jwt},
	}
	if len(fs) != len(want) {
		t.Fatalf("got %d findings %v\n%q", len(fs), fs, out)
	}
	for k, w := range want {
		f := fs[k]
		if f.Kind != w.kind || in[f.Start:f.End] != w.text {
			t.Errorf("finding %d = %v %q, want %s %q", k, f, in[f.Start:f.End], w.kind, w.text)
		}
	}
	wantOut := "[REDACTED:github-token] then PASSWORD=[REDACTED:password-assignment] and\npostgres://[REDACTED:url-credentials]@db/x then [REDACTED:aws-access-key]\n[REDACTED:jwt]"
	if out != wantOut {
		t.Errorf("got  %q\nwant %q", out, wantOut)
	}
}

// TestSecondPass covers inputs where redacting one value changes how its
// neighbour is judged (found by fuzzing); String must still be idempotent.
func TestSecondPass(t *testing.T) {
	for _, in := range []string{
		"PAsswd:A000\tToken:\"00,",
		"password: x.ghp_" + alnum(36, 910) + ",",
		"x <private>a</private>password: abc123 token=\"q1w2e3r4\"",
	} {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
		if len(fs) == 0 {
			t.Errorf("nothing found in %q", in)
		}
	}
}

func TestExactOutputs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://admin:s3cret@db:5432/x", "postgres://[REDACTED:url-credentials]@db:5432/x"},
		{"token: ghp_" + alnum(36, 903), "token: [REDACTED:github-token]"},
		{`{"password":"x1", "ok": true}`, `{"password":"[REDACTED:password-assignment]", "ok": true}`},
		{"Authorization: Bearer $TOKEN", "Authorization: Bearer $TOKEN"},
		{"password: \"${DB_PASSWORD}\"", "password: \"${DB_PASSWORD}\""},
		{"-----BEGIN RSA PRIVATE KEY-----\nabc\n-----END RSA PRIVATE KEY-----\ntail", "[REDACTED:private-key]\ntail"},
		{"head\n-----BEGIN PRIVATE KEY-----\nabc\ndef", "head\n[REDACTED:private-key]"},
		{"api_key = \"sk-proj-" + b64url(40, 904) + "\"", "api_key = \"[REDACTED:openai-key]\""},
	}
	for _, tt := range tests {
		out, fs := String(tt.in)
		checkInvariants(t, tt.in, out, fs)
		if out != tt.want {
			t.Errorf("String(%q)\n got %q\nwant %q", tt.in, out, tt.want)
		}
	}
}

func TestSecretAtEdges(t *testing.T) {
	gh := cat("gh", "p_", alnum(36, 905))
	for _, in := range []string{gh, gh + " tail", "head " + gh, "(" + gh + ")", "\"" + gh + "\"", gh + "\n" + gh} {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
		if strings.Contains(out, gh) || len(fs) == 0 || fs[0].Kind != "github-token" {
			t.Errorf("%q -> %q %v", in, out, fs)
		}
	}
	// A prefix glued to a word is not a token start.
	in := "xghp_" + strings.Repeat("a", 36)
	if out, _ := String(in); out != in {
		t.Errorf("glued prefix redacted: %q", out)
	}
}

func TestInvalidUTF8(t *testing.T) {
	gh := cat("gh", "p_", alnum(36, 906))
	ins := []string{
		"\xff\xfe\xfd",
		"password=\xff\xfesecret\xc3",
		"\xc3" + gh + "\xff",
		"<private>\xff</private>\xc3\x28",
		"https://u:\xffpw@host/",
		"Authorization: Bearer \xe2\x82",
		strings.Repeat("\x80", 100) + mixed(40, 907) + "\xff",
	}
	for _, in := range ins {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
		if strings.Contains(out, gh) {
			t.Errorf("token survived in %q", out)
		}
	}
	// Multi-byte characters around secrets stay intact.
	in := "日本語 PASSWORD=pässwörd1 ünd " + gh + " ✓"
	out, fs := String(in)
	checkInvariants(t, in, out, fs)
	if out != "日本語 PASSWORD=[REDACTED:password-assignment] ünd [REDACTED:github-token] ✓" {
		t.Errorf("got %q", out)
	}
}

func TestIdempotent(t *testing.T) {
	var all []string
	for _, c := range secretCases() {
		all = append(all, c.text)
	}
	all = append(all, lookalikes()...)
	all = append(all, strings.Join(all, "\n"), realisticText(10<<10, true))
	for _, in := range all {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
	}
}

func TestConcurrent(t *testing.T) {
	in := realisticText(4<<10, true)
	want, _ := String(in)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for k := 0; k < 20; k++ {
				if got, _ := String(in); got != want {
					t.Error("concurrent result differs")
					return
				}
			}
		}()
	}
	wg.Wait()
}

func TestPlaceholdersAndProse(t *testing.T) {
	keep := []string{
		"token=<token>", "token=${TOKEN}", "token=$TOKEN", "token=xxx", "password=***",
		"password=changeme", "TOKEN=$(gh auth token)", "password: %DB_PASSWORD%", "token: {{ .Values.token }}",
		"api_key: your-api-key-here", "secret: REPLACE_ME", "OPENAI_API_KEY=sk-...abcd", "token: null",
		"password: \"\"", "the secret: it is kept elsewhere", "Token expired: log in again", "password = get_password()",
		"self.token = token", "password=password", "PWD=/home/dev/cairn", "token: 5", "pass: 12",
		"Bearer tokens are sent in the header", "compass=north bypass=yes",
		"password_hash: " + hexs(60, 908)[:20], "if token != \"\" && password == nil {",
	}
	for _, in := range keep {
		if out, fs := String(in); out != in {
			t.Errorf("String(%q) = %q %v", in, out, fs)
		}
	}
}

func TestLongInputs(t *testing.T) {
	// Pathological shapes must stay linear-ish and never panic.
	ins := []string{
		strings.Repeat("=", 100000),
		strings.Repeat(":", 100000),
		strings.Repeat("-----BEGIN CERTIFICATE-----", 2000),
		strings.Repeat("<private>", 5000),
		strings.Repeat("</private>", 5000),
		strings.Repeat("a", 100000),
		strings.Repeat("aB3", 40000),
		strings.Repeat("password=", 10000),
		strings.Repeat("https://", 10000),
		strings.Repeat("eyJ", 30000),
	}
	for _, in := range ins {
		out, fs := String(in)
		checkInvariants(t, in, out, fs)
	}
}

func ExampleString() {
	out, fs := String("connect to postgres://app:s3cret@db:5432/app <private>my notes</private>with PASSWORD=hunter2")
	fmt.Println(out)
	for _, f := range fs {
		fmt.Println(f.Kind, f.Start, f.End)
	}
	// Output:
	// connect to postgres://[REDACTED:url-credentials]@db:5432/app with PASSWORD=[REDACTED:password-assignment]
	// url-credentials 22 32
	// private-span 45 72
	// password-assignment 86 93
}
