package redact

import (
	"strings"
	"testing"
	"unicode/utf8"
)

func init() {
	// Tests must see panics that String would otherwise turn into a
	// fail-closed "[REDACTED:redaction-error]".
	testPanicHook = func(v any) { panic(v) }
}

func FuzzString(f *testing.F) {
	for _, c := range secretCases() {
		f.Add(c.text)
	}
	for _, l := range lookalikes() {
		f.Add(l)
	}
	for _, s := range []string{
		"", "<private>a</private>", "<pri<private>x</private>vate>y", "a <PRIVATE>b",
		"password=x&token=y", "Authorization: Basic", "https://a:b@c/d", "-----BEGIN EC PRIVATE KEY-----",
		"token: [REDACTED:secret-assignment]", "postgres://[REDACTED:url-credentials]@db",
		"\xff\xfe password=\xc3", "sk-sk-sk-sk-" + strings.Repeat("a1B2", 10),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		out, fs := String(in)
		if len(fs) == 0 && out != in {
			t.Fatalf("changed without findings: %q -> %q", in, out)
		}
		for k, fd := range fs {
			if fd.Start < 0 || fd.End > len(in) || fd.Start >= fd.End {
				t.Fatalf("bad finding %+v (len %d)", fd, len(in))
			}
			if k > 0 && fs[k-1].Start > fd.Start {
				t.Fatalf("unsorted findings %v", fs)
			}
		}
		if utf8.ValidString(in) && !utf8.ValidString(out) {
			t.Fatalf("invalid UTF-8 output for valid input %q: %q", in, out)
		}
		again, fs2 := String(out)
		if again != out || len(fs2) != 0 {
			t.Fatalf("not idempotent:\nin   %q\nout  %q\nout2 %q %v", in, out, again, fs2)
		}
		if Contains(in) != (len(fs) > 0) {
			t.Fatalf("Contains disagrees for %q", in)
		}
	})
}
