package jsonlite

import (
	"encoding/json"
	"testing"
)

// AppendString writes what encoding/json writes, byte for byte, and a
// Reader reads it back. Tried: quotes, backslashes, every control
// character, HTML characters, U+2028/U+2029, multi-byte text, invalid
// UTF-8 (which both write as U+FFFD).
func TestAppendStringAsEncodingJSON(t *testing.T) {
	t.Parallel()
	seeds := []string{"", "plain", `"q" \ /`, "<a href='x'>&amp;</a>", "\u2028\u2029", "é 中 😀", "\xff\xfe", "a\x00b\x1fc\x7f"}
	for c := 0; c < 0x20; c++ {
		seeds = append(seeds, "x"+string(rune(c))+"y")
	}
	for _, s := range seeds {
		checkString(t, s)
	}
}

func checkString(t *testing.T, s string) {
	t.Helper()
	want, _ := json.Marshal(s)
	got := AppendString(nil, s)
	if string(got) != string(want) {
		t.Fatalf("AppendString(%q) = %s, want %s", s, got, want)
	}
	var back string
	json.Unmarshal(want, &back)
	if r, ok := NewReader(got).String(); !ok || r != back {
		t.Fatalf("reading %s gives %q, %v; want %q", got, r, ok, back)
	}
}

func FuzzAppendString(f *testing.F) {
	f.Add("a\"b<c>\u2028\xff")
	f.Fuzz(checkString)
}

// A \u escape reads as encoding/json reads it, in either case of hex
// digits; a malformed one is refused, and so are UTF-16 surrogates, which
// the Reader leaves to encoding/json.
func TestStringUnicodeEscapes(t *testing.T) {
	t.Parallel()
	for _, in := range []string{`"\u003c\u003E\u0026"`, `"caf\u00e9 \u00C9"`, `"\u0041b\u004A"`, `"\u0000"`, `"\uffff"`, `"x\u2028y"`} {
		var want string
		if err := json.Unmarshal([]byte(in), &want); err != nil {
			t.Fatal(err)
		}
		if got, ok := NewReader([]byte(in)).String(); !ok || got != want {
			t.Errorf("%s: got %q, %v; want %q", in, got, ok, want)
		}
	}
	for _, in := range []string{`"\u12"`, `"\u12g4"`, `"\uZZZZ"`, `"\u 123"`, `"\ud83d\ude00"`, `"\u00"`} {
		if got, ok := NewReader([]byte(in)).String(); ok {
			t.Errorf("%s: read as %q", in, got)
		}
	}
}
