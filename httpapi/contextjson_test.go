package httpapi

import (
	"encoding/json"
	"reflect"
	"testing"
)

// ContextIn is written byte for byte as encoding/json writes the struct.
// Tried: every field alone and all together, empty and nil lists, zero
// and negative numbers, HTML characters, quotes, control characters,
// U+2028, invalid UTF-8, and a configuration (left to encoding/json).
func TestContextInMarshalsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	n, zero, neg := 600, 0, -3
	odd := "a \"b\" \\ <c> & d\n\t\x01\x7f é \u2028 \xff end"
	all := ContextIn{Prompt: odd, Files: []string{"a.go", odd}, Hat: "h", Agent: "claude", Task: "t", Session: "s",
		Budget: &n, Limit: &zero, MaxChars: &neg, Format: "json", Mode: "prompt", SearchMode: "lexical", DryRun: true,
		Tiers: []string{"static"}, Types: []string{"fix", "pitfall"}, Index: true, Explain: true, MaxJSONChars: 99,
		Root: "/r", Conversations: []string{"c"}, DefaultConfig: true}
	cases := []ContextIn{{}, all, {Files: []string{}}, {Files: []string{""}}, {Prompt: odd}, {MaxJSONChars: -1},
		{Budget: &zero}, {Config: json.RawMessage(` {"a": "<b>", "c": [1, 2]} `)}, {Session: "s", Config: json.RawMessage(`{}`)}}
	type plain ContextIn
	for _, in := range cases {
		want, err := json.Marshal(plain(in))
		if err != nil {
			t.Fatal(err)
		}
		got, err := in.MarshalJSON()
		if err != nil || string(got) != string(want) {
			t.Errorf("MarshalJSON(%+v):\n got %s, %v\nwant %s", in, got, err, want)
		}
		var back ContextIn
		if err := json.Unmarshal(got, &back); err != nil {
			t.Errorf("%s does not decode: %v", got, err)
		}
	}
}

// ContextOut decodes as encoding/json decodes the struct, into an empty
// value and into one already filled (null leaves a string, empties the
// list). Tried: escapes, nulls, duplicate, unknown and differently cased
// keys, wrong types, trailing text, truncation, invalid UTF-8.
func TestContextOutUnmarshalsAsEncodingJSON(t *testing.T) {
	t.Parallel()
	seeds := []string{
		`{"block":"<cairn-context>\u003cx\u003e \"q\"\n</cairn-context>","ids":["a","b"],"tokens":42,"explain":"why"}`,
		`{}`, ` {"block":null,"ids":null,"tokens":null,"explain":null} `, `{"ids":[]}`, `{"tokens":-0}`,
		`null`, `[]`, `{"block":1}`, `{"ids":"a"}`, `{"ids":[null]}`, `{"tokens":1.5}`, `{"tokens":1e3}`,
		`{"block":"a","block":"b"}`, `{"Block":"a"}`, `{"other":1}`, `{"block":"a"} x`, `{"block":"a"`,
		`{"block":"\ud83d\ude00"}`, "{\"block\":\"\xff\"}", `{"block":"a",}`,
	}
	for _, s := range seeds {
		checkContextOut(t, []byte(s))
	}
}

func checkContextOut(t *testing.T, b []byte) {
	t.Helper()
	type plain ContextOut
	for _, start := range []ContextOut{{}, {Block: "old", IDs: []string{"x"}, Tokens: 7, Explain: "e"}} {
		want := plain(start)
		wantErr := json.Unmarshal(b, &want)
		got := start
		got.IDs = append([]string(nil), start.IDs...)
		err := got.UnmarshalJSON(b)
		if (err == nil) != (wantErr == nil) || err == nil && !reflect.DeepEqual(got, ContextOut(want)) {
			t.Fatalf("%q into %+v:\n got %+v, %v\nwant %+v, %v", b, start, got, err, want, wantErr)
		}
	}
}

func FuzzContextOut(f *testing.F) {
	f.Add(`{"block":"x\ny","ids":["a"],"tokens":3,"explain":""}`)
	f.Add(`{"ids":null,"block":null}`)
	f.Fuzz(func(t *testing.T, s string) { checkContextOut(t, []byte(s)) })
}
