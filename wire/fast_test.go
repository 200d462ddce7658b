package wire

import (
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
)

// fastSeeds are records decodeFast must accept (the first group) or leave
// to encoding/json (the second).
var fastSeeds = []string{
	`{"id":"p00-000001","project":"p00","type":"fix","title":"Flaky TestX","content":"Flaky test in a/b_test.go; fixed it.","tags":["agent:copilot"],"file_refs":["a/b_test.go"],"confidence":0.67,"created_at":"2025-11-02T15:02:32Z","use_count":6}`,
	`{}`, ` { } `, "{\n\t\"content\" : \"x\" ,\r\n \"tags\" : [ ] }",
	`{"content":"tab\there \"quoted\" back\\slash \/ \b\f\n\r \u00e9\u4e2d\u0000","title":"é 中"}`,
	`{"id":null,"project":null,"scope":"global","type":null,"key":"k","tags":null,"file_refs":null,"confidence":null,"source":"imported","created_by_agent":"a","created_by_hat":null,"created_by_task_id":"t-1","created_by_session_id":"s","created_at":null,"updated_at":"2024-01-15 10:30:00","last_used_at":"2024-01-15","verified_at":"2024-01-15T10:30:00.123+02:00","expires_at":"","use_count":-0,"pinned":true,"superseded_by":"x","flag":"override"}`,
	`{"confidence":1e-3,"use_count":12,"pinned":false}`, `{"confidence":-0.5E+2}`, `{"confidence":0}`,

	`null`, `[]`, `"x"`, `{"content":"x"} x`, `{"content":"x",}`, `{"content":"x"`, `{,}`, `{"a":1}`,
	`{"ID":"x"}`, `{"id":"a","id":"b"}`, `{"tags":"a,b"}`, `{"tags":"[\"a\"]"}`, `{"tags":[null]}`,
	`{"tags":[1]}`, `{"created_by_task_id":42}`, `{"confidence":"0.5"}`, `{"confidence":01}`,
	`{"confidence":1.}`, `{"confidence":.5}`, `{"confidence":1e999}`, `{"use_count":1.5}`,
	`{"use_count":1e2}`, `{"use_count":99999999999999999999}`, `{"pinned":"true"}`, `{"pinned":nul}`,
	`{"created_at":"yesterday"}`, `{"created_at":12}`, `{"content":"\ud83d\ude00"}`, `{"content":"\ud800"}`,
	`{"content":"\x"}`, `{"content":"\u12"}`, "{\"content\":\"a\tb\"}", `{"content":"x"}}`,
	`{"sourceId":"x","content":"y"}`, `{"content":"x","extra":{"a":[1,2]}}`, `{"title":["x"]}`,
}

// decodeFast accepts the records it should, and for every record it
// accepts gives what encoding/json gives. Inputs tried: fastSeeds above
// (escapes, nulls, every field, every time layout, numbers at the edges
// of JSON's grammar, duplicate and unknown keys, trailing text, truncated
// records, wrong types).
func TestDecodeFastAgreesWithEncodingJSON(t *testing.T) {
	t.Parallel()
	for i, s := range fastSeeds {
		if got, want := checkFast(t, []byte(s)), i < 9; got != want {
			t.Errorf("decodeFast accepts %s: %v, want %v", s, got, want)
		}
	}
	if w, ok := decodeFast([]byte(fastSeeds[0])); !ok || w.ID != "p00-000001" || len(w.Tags) != 1 || w.UseCount != 6 {
		t.Errorf("decodeFast(%s) = %+v, %v", fastSeeds[0], w, ok)
	}
}

// checkFast checks decodeFast against encoding/json on b and reports
// whether decodeFast accepted it.
func checkFast(t *testing.T, b []byte) bool {
	t.Helper()
	fast, ok := decodeFast(b)
	if !ok {
		return false
	}
	var slow Memory
	if err := json.Unmarshal(b, &slow); err != nil {
		t.Fatalf("decodeFast accepted %q, encoding/json fails: %v", b, err)
	}
	if !reflect.DeepEqual(*fast, slow) {
		t.Fatalf("%q:\ndecodeFast    %+v\nencoding/json %+v", b, *fast, slow)
	}
	return true
}

func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSeeds {
		f.Add(s)
	}
	f.Add(strings.Repeat(`{"tags":["a","b"],"content":"x\ny"}`, 2))
	f.Add(`{"content":"see \"sourceId\" and \"createdAt\"","source":"explicit"}`)
	f.Add(`{"content":"x","source":"task","created_by_task_id":"t"}`)
	f.Fuzz(func(t *testing.T, s string) {
		if utf8.ValidString(s) { // as decodeRecord asks
			checkFast(t, []byte(s))
		}
		checkRecord(t, []byte(s))
	})
}

// checkRecord checks that decodeRecord gives for b what it gave before
// decodeFast: encoding/json, then the seed-001 fields read as they were.
func checkRecord(t *testing.T, b []byte) {
	t.Helper()
	got := decodeRecord(b)
	want := func() cairn.ImportRecord {
		if !utf8.Valid(b) {
			return cairn.ImportRecord{Err: fmt.Errorf("the record is not valid UTF-8")}
		}
		var w Memory
		if err := json.Unmarshal(b, &w); err != nil {
			return cairn.ImportRecord{Err: describe(err)}
		}
		m := w.ToMemory()
		if err := fromSeed001(b, m, false); err != nil {
			return cairn.ImportRecord{Err: err}
		}
		return cairn.ImportRecord{Memory: m}
	}()
	if fmt.Sprint(got.Err) != fmt.Sprint(want.Err) || !reflect.DeepEqual(got.Memory, want.Memory) {
		t.Fatalf("decodeRecord(%q) = %+v, %v; want %+v, %v", b, got.Memory, got.Err, want.Memory, want.Err)
	}
}

// Every seed decodes as it did before decodeFast, error or not.
func TestDecodeRecordAsBefore(t *testing.T) {
	t.Parallel()
	for _, s := range append(fastSeeds, `{"content":"see \"sourceId\"","source":"explicit"}`, `{"content":"x","source":"task"}`, "{\"content\":\"\xff\"}") {
		checkRecord(t, []byte(s))
	}
}

func BenchmarkDecodeRecord(b *testing.B) {
	rec := []byte(fastSeeds[0])
	b.Run("fast", func(b *testing.B) {
		for b.Loop() {
			decodeRecord(rec)
		}
	})
	b.Run("encoding-json", func(b *testing.B) {
		for b.Loop() {
			var w Memory
			json.Unmarshal(rec, &w)
		}
	})
}
