package wire_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func readAll(r io.Reader) []cairn.ImportRecord {
	var out []cairn.ImportRecord
	for rec := range wire.Read(r) {
		out = append(out, rec)
	}
	return out
}

func readString(s string) []cairn.ImportRecord { return readAll(strings.NewReader(s)) }

// lines summarises records as "line:ok:content" or "line:err:message".
func lines(recs []cairn.ImportRecord) []string {
	var out []string
	for _, r := range recs {
		if r.Err != nil {
			out = append(out, itoa(r.Line)+":err:"+r.Err.Error())
		} else {
			out = append(out, itoa(r.Line)+":ok:"+r.Memory.Content)
		}
	}
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

func mustOne(t *testing.T, recs []cairn.ImportRecord) *cairn.Memory {
	t.Helper()
	if len(recs) != 1 || recs[0].Err != nil {
		t.Fatalf("records = %v, want one good record", lines(recs))
	}
	return recs[0].Memory
}

func TestReadJSONLinesSkipsBlankLinesAndCountsThem(t *testing.T) {
	t.Parallel()
	in := "{\"content\":\"one\"}\n\n   \n{\"content\":\"two\"}\n{\"content\":\"three\"}"
	got := lines(readString(in))
	want := []string{"1:ok:one", "4:ok:two", "5:ok:three"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadJSONLinesCountsLeadingBlankLines(t *testing.T) {
	t.Parallel()
	in := "\n\n{\"content\":\"one\"}\n{bad\n"
	recs := readString(in)
	if len(recs) != 2 || recs[0].Line != 3 || recs[1].Line != 4 || recs[1].Err == nil {
		t.Errorf("got %q, want the record on line 3 and the error on line 4", lines(recs))
	}
}

func TestReadJSONLinesAcceptsCRLFAndBOM(t *testing.T) {
	t.Parallel()
	in := "\xEF\xBB\xBF{\"content\":\"one\"}\r\n{\"content\":\"two\"}\r\n"
	got := lines(readString(in))
	want := []string{"1:ok:one", "2:ok:two"}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

func TestReadIgnoresUnknownFields(t *testing.T) {
	t.Parallel()
	m := mustOne(t, readString(`{"content":"x","embedding":[0.1,0.2],"extra":{"a":1},"type":"note"}`))
	if m.Content != "x" || m.Type != "note" {
		t.Errorf("memory = %+v", m)
	}
}

func TestReadAcceptsEveryFieldOfSeedExport(t *testing.T) {
	t.Parallel()
	in := `{"id":"mem-1","project":"p","scope":"global","type":"decision","key":"db","title":"T","content":"C",` +
		`"tags":["a","b"],"file_refs":["x.go"],"confidence":0.8,"source":"imported","created_by_agent":"claude",` +
		`"created_by_hat":"builder","created_by_task_id":42,"created_by_session_id":"s1",` +
		`"created_at":"2024-01-15T10:30:00Z","updated_at":"2024-01-16 11:00:00","last_used_at":"2024-01-17",` +
		`"verified_at":null,"expires_at":"2024-12-31T23:59:59.123+02:00","use_count":3,"pinned":true,"superseded_by":"mem-2"}`
	got := mustOne(t, readString(in))
	want := &cairn.Memory{
		ID: "mem-1", Project: "p", Scope: cairn.ScopeGlobal, Type: "decision", Key: "db", Title: "T", Content: "C",
		Tags: []string{"a", "b"}, FileRefs: []string{"x.go"}, Confidence: 0.8, Source: cairn.SourceImported,
		Agent: "claude", Hat: "builder", TaskID: "42", SessionID: "s1",
		CreatedAt:  time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC),
		UpdatedAt:  time.Date(2024, 1, 16, 11, 0, 0, 0, time.UTC),
		LastUsedAt: time.Date(2024, 1, 17, 0, 0, 0, 0, time.UTC),
		ExpiresAt:  time.Date(2024, 12, 31, 21, 59, 59, 123e6, time.UTC),
		UseCount:   3, Pinned: true, SupersededBy: "mem-2",
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %+v\nwant %+v", got, want)
	}
}

func TestReadTaskIDAsNumberOrString(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"content":"x","created_by_task_id":42}`:    "42",
		`{"content":"x","created_by_task_id":-7}`:    "-7",
		`{"content":"x","created_by_task_id":"t-9"}`: "t-9",
		`{"content":"x","created_by_task_id":null}`:  "",
	} {
		if m := mustOne(t, readString(in)); m.TaskID != want {
			t.Errorf("%s: task id %q, want %q", in, m.TaskID, want)
		}
	}
	recs := readString(`{"content":"x","created_by_task_id":true}`)
	if len(recs) != 1 || recs[0].Err == nil {
		t.Errorf("a boolean task id was accepted: %q", lines(recs))
	}
}

func TestReadTagsInEveryForm(t *testing.T) {
	t.Parallel()
	tests := map[string][]string{
		`{"content":"x","tags":["a","b"]}`:          {"a", "b"},
		`{"content":"x","tags":"a, b ,,c"}`:         {"a", "b", "c"},
		`{"content":"x","tags":"[\"a\", \"b,c\"]"}`: {"a", "b,c"},
		`{"content":"x","tags":""}`:                 nil,
		`{"content":"x","tags":null}`:               nil,
		`{"content":"x"}`:                           nil,
		`{"content":"x","file_refs":"a.go,b.go"}`:   nil,
	}
	for in, want := range tests {
		m := mustOne(t, readString(in))
		if len(m.Tags) != len(want) || (len(want) > 0 && !reflect.DeepEqual([]string(m.Tags), want)) {
			t.Errorf("%s: tags %q, want %q", in, m.Tags, want)
		}
	}
	if m := mustOne(t, readString(`{"content":"x","file_refs":"a.go, b.go"}`)); !reflect.DeepEqual(m.FileRefs, []string{"a.go", "b.go"}) {
		t.Errorf("file refs %q", m.FileRefs)
	}
	recs := readString(`{"content":"x","tags":[1,2]}`)
	if len(recs) != 1 || recs[0].Err == nil || !strings.Contains(recs[0].Err.Error(), "list of strings") {
		t.Errorf("tags of numbers: %q, want an error about a list of strings", lines(recs))
	}
}

func TestReadTimesInEveryForm(t *testing.T) {
	t.Parallel()
	want := time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC)
	for _, s := range []string{"2024-01-15T10:30:00Z", "2024-01-15 10:30:00", "2024-01-15T10:30:00", "2024-01-15T12:30:00+02:00", " 2024-01-15T10:30:00.000Z "} {
		m := mustOne(t, readString(`{"content":"x","created_at":"`+s+`"}`))
		if !m.CreatedAt.Equal(want) || m.CreatedAt.Location() != time.UTC {
			t.Errorf("%q read as %v, want %v in UTC", s, m.CreatedAt, want)
		}
	}
	m := mustOne(t, readString(`{"content":"x","created_at":"2024-01-15"}`))
	if !m.CreatedAt.Equal(time.Date(2024, 1, 15, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("date read as %v", m.CreatedAt)
	}
	for _, s := range []string{`""`, `null`} {
		if m := mustOne(t, readString(`{"content":"x","created_at":`+s+`}`)); !m.CreatedAt.IsZero() {
			t.Errorf("%s read as %v, want zero", s, m.CreatedAt)
		}
	}
	for _, s := range []string{`"yesterday"`, `12345`, `"2024-13-45"`} {
		recs := readString(`{"content":"x","created_at":` + s + `}`)
		if len(recs) != 1 || recs[0].Err == nil {
			t.Errorf("created_at %s accepted: %q", s, lines(recs))
		}
	}
}

func TestReadSeedExportDocument(t *testing.T) {
	t.Parallel()
	in := `{
  "version": 1,
  "project": "/home/me/src/app",
  "exported_at": "2024-02-01T00:00:00Z",
  "memories": [
    {
      "id": "mem-a",
      "type": "decision",
      "title": "Use Postgres",
      "content": "We use Postgres.",
      "tags": "[\"db\"]",
      "confidence": 0.9,
      "created_by_task_id": 7,
      "created_at": "2024-01-15 10:30:00",
      "use_count": 2
    },
    {
      "id": "mem-b",
      "project": "other",
      "content": "Elsewhere."
    }
  ]
}
`
	recs := readString(in)
	if len(recs) != 2 {
		t.Fatalf("records %q, want 2", lines(recs))
	}
	a, b := recs[0], recs[1]
	if a.Err != nil || b.Err != nil {
		t.Fatalf("errors: %q", lines(recs))
	}
	if a.Line != 1 || b.Line != 2 {
		t.Errorf("lines %d, %d; want element numbers 1, 2", a.Line, b.Line)
	}
	if a.Memory.Project != "/home/me/src/app" || b.Memory.Project != "other" {
		t.Errorf("projects %q, %q; want inherited and own", a.Memory.Project, b.Memory.Project)
	}
	if a.Memory.TaskID != "7" || !reflect.DeepEqual(a.Memory.Tags, []string{"db"}) || a.Memory.UseCount != 2 || a.Memory.Confidence != 0.9 {
		t.Errorf("memory a = %+v", a.Memory)
	}
}

func TestReadCompactExportDocument(t *testing.T) {
	t.Parallel()
	recs := readString(`{"version":1,"project":"p","memories":[{"content":"one"},{"content":"two"}]}` + "\n")
	if got := lines(recs); !reflect.DeepEqual(got, []string{"1:ok:one", "2:ok:two"}) {
		t.Fatalf("got %q", got)
	}
	if recs[0].Memory.Project != "p" {
		t.Errorf("project %q, want p", recs[0].Memory.Project)
	}
}

func TestReadRejectsNewerExportDocument(t *testing.T) {
	t.Parallel()
	recs := readString("{\n\"version\": 99,\n\"memories\": []\n}")
	if len(recs) != 1 || recs[0].Err == nil || recs[0].Line != 1 || !strings.Contains(recs[0].Err.Error(), "99") {
		t.Errorf("got %q, want one error naming version 99", lines(recs))
	}
}

func TestReadJSONArray(t *testing.T) {
	t.Parallel()
	recs := readString("  [\n {\"content\":\"one\"},\n {\"content\":\"two\", \"confidence\": \"x\"},\n {\"content\":\"three\"}\n]\n")
	if len(recs) != 3 {
		t.Fatalf("got %q", lines(recs))
	}
	if recs[0].Err != nil || recs[0].Memory.Content != "one" || recs[2].Err != nil || recs[2].Line != 3 {
		t.Errorf("got %q", lines(recs))
	}
	if recs[1].Err == nil || recs[1].Line != 2 || !strings.Contains(recs[1].Err.Error(), "field confidence") {
		t.Errorf("element 2: %q, want an error naming field confidence", lines(recs))
	}
	bad := readString("[1, 2")
	if len(bad) != 1 || bad[0].Err == nil {
		t.Errorf("truncated array: %q", lines(bad))
	}
}

func TestReadBadLinesReportLineAndReadableMessage(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"content":"ok1"}`,
		`{"content":"x","confidence":"high"}`,
		`{"content": "unterminated`,
		`42`,
		`{"content":"x","use_count":"many"}`,
		"{\"content\":\"bad \xff utf8\"}",
		`{"content":"x","pinned":"yes"}`,
		`{"content":"ok2"}`,
	}, "\n")
	recs := readString(in)
	if len(recs) != 8 {
		t.Fatalf("got %d records %q, want 8", len(recs), lines(recs))
	}
	wantMsg := []string{"", "field confidence", "invalid JSON", "JSON object", "field use_count", "UTF-8", "field pinned", ""}
	for i, r := range recs {
		if r.Line != i+1 {
			t.Errorf("record %d has line %d", i, r.Line)
		}
		if wantMsg[i] == "" {
			if r.Err != nil {
				t.Errorf("line %d: unexpected error %v", i+1, r.Err)
			}
			continue
		}
		if r.Err == nil {
			t.Errorf("line %d: no error, want one mentioning %q", i+1, wantMsg[i])
			continue
		}
		if !strings.Contains(r.Err.Error(), wantMsg[i]) {
			t.Errorf("line %d: error %q, want it to mention %q", i+1, r.Err, wantMsg[i])
		}
		if strings.Contains(r.Err.Error(), "Go struct") || strings.Contains(r.Err.Error(), "wire.Memory") {
			t.Errorf("line %d: error %q leaks Go type names", i+1, r.Err)
		}
	}
	if msg := recs[1].Err.Error(); !strings.Contains(msg, "number") || !strings.Contains(msg, "string") {
		t.Errorf("confidence error %q should say a number was expected and a string found", msg)
	}
}

func TestReadOverlongLineIsReportedAndReadingContinues(t *testing.T) {
	t.Parallel()
	for _, over := range []int{10, 3 << 20} {
		t.Run(strconv.Itoa(over), func(t *testing.T) {
			t.Parallel()
			checkOverlongLine(t, over)
		})
	}
}

// checkOverlongLine reads a line over bytes longer than MaxLineBytes
// between two good lines.
func checkOverlongLine(t *testing.T, over int) {
	var b bytes.Buffer
	b.WriteString(`{"content":"first"}` + "\n")
	b.WriteString(`{"content":"`)
	b.Write(bytes.Repeat([]byte("a"), wire.MaxLineBytes+over))
	b.WriteString("\"}\n")
	b.WriteString(`{"content":"third"}` + "\n")
	recs := readAll(&b)
	if len(recs) != 3 {
		t.Fatalf("got %d records, want 3", len(recs))
	}
	if recs[0].Err != nil || recs[0].Line != 1 {
		t.Errorf("record 1: line %d err %v", recs[0].Line, recs[0].Err)
	}
	if recs[1].Err == nil || recs[1].Line != 2 || !strings.Contains(recs[1].Err.Error(), "longer") {
		t.Errorf("record 2: line %d err %v, want a too-long error on line 2", recs[1].Line, recs[1].Err)
	}
	if recs[2].Err != nil || recs[2].Line != 3 || recs[2].Memory.Content != "third" {
		t.Errorf("record 3: line %d err %v, want third on line 3", recs[2].Line, recs[2].Err)
	}
}

func TestReadLongLineWithinLimitIsRead(t *testing.T) {
	t.Parallel()
	content := strings.Repeat("b", 3<<20) // longer than the read buffer
	recs := readString(`{"content":"` + content + `"}` + "\n" + `{"content":"next"}`)
	if len(recs) != 2 || recs[0].Err != nil || recs[0].Memory.Content != content || recs[1].Line != 2 {
		t.Errorf("got %d records; first err %v", len(recs), recs[0].Err)
	}
}

func TestReadReportsReaderErrorLast(t *testing.T) {
	t.Parallel()
	boom := errors.New("boom")
	r := io.MultiReader(strings.NewReader("{\"content\":\"one\"}\n"), iotest.ErrReader(boom))
	recs := readAll(r)
	if len(recs) != 2 || recs[0].Err != nil || recs[1].Line != 0 || !errors.Is(recs[1].Err, boom) {
		t.Errorf("got %q, want one record then the reader's error with line 0", lines(recs))
	}
	if recs := readAll(iotest.ErrReader(boom)); len(recs) != 1 || !errors.Is(recs[0].Err, boom) || recs[0].Line != 0 {
		t.Errorf("failing reader: %q", lines(recs))
	}
}

func TestReadOfEmptyInputYieldsNothing(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"", "\n\n", "  \r\n", "\xEF\xBB\xBF"} {
		if recs := readString(in); len(recs) != 0 {
			t.Errorf("Read(%q) = %q, want nothing", in, lines(recs))
		}
	}
}

func TestReadStopsWhenConsumerStops(t *testing.T) {
	t.Parallel()
	for _, in := range []string{"{\"content\":\"a\"}\n{\"content\":\"b\"}\n", "[{\"content\":\"a\"},{\"content\":\"b\"}]"} {
		n := 0
		for range wire.Read(strings.NewReader(in)) {
			n++
			break
		}
		if n != 1 {
			t.Errorf("%q: %d records after break", in, n)
		}
	}
}

func fullMemory() *cairn.Memory {
	at := func(d int) time.Time { return time.Date(2024, 3, d, 10, 0, 0, 123e6, time.UTC) }
	return &cairn.Memory{
		ID: "mem-1", Project: "p", Scope: cairn.ScopeGlobal, Type: "decision", Key: "k", Title: "T",
		Content: "C <b>&</b>", Tags: []string{"a", "b"}, FileRefs: []string{"x.go"}, Confidence: 0.75,
		Source: cairn.SourceExplicit, Agent: "claude", Hat: "hat", TaskID: "t1", SessionID: "s1",
		CreatedAt: at(1), UpdatedAt: at(2), LastUsedAt: at(3), VerifiedAt: at(4), ExpiresAt: at(5),
		UseCount: 4, Pinned: true, SupersededBy: "mem-2",
	}
}

func TestFromMemoryToMemoryRoundTrips(t *testing.T) {
	t.Parallel()
	m := fullMemory()
	b, err := json.Marshal(wire.FromMemory(m))
	if err != nil {
		t.Fatal(err)
	}
	var w wire.Memory
	if err := json.Unmarshal(b, &w); err != nil {
		t.Fatal(err)
	}
	if got := w.ToMemory(); !reflect.DeepEqual(got, m) {
		t.Errorf("round trip\n got %+v\nwant %+v\njson %s", got, m, b)
	}
	if !strings.Contains(string(b), `"created_by_task_id":"t1"`) || !strings.Contains(string(b), `"use_count":4`) {
		t.Errorf("JSON %s lacks seed 000 field names", b)
	}
}

func TestFromMemoryWritesEmptyListsAndOmitsZeroTimes(t *testing.T) {
	t.Parallel()
	m := &cairn.Memory{ID: "mem-1", Type: "note", Title: "t", Content: "c", Confidence: 0.123456,
		CreatedAt: time.Date(2024, 1, 1, 0, 0, 0, 0, time.UTC)}
	b, err := json.Marshal(wire.FromMemory(m))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"tags":[]`, `"file_refs":[]`, `"confidence":0.1235`, `"created_at":"2024-01-01T00:00:00Z"`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON %s lacks %s", s, want)
		}
	}
	for _, absent := range []string{"updated_at", "last_used_at", "verified_at", "expires_at", "pinned", "superseded_by", "key"} {
		if strings.Contains(s, `"`+absent+`"`) {
			t.Errorf("JSON %s has unset %s", s, absent)
		}
	}
}

func TestTimeJSON(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   time.Time
		want string
	}{
		{time.Time{}, `null`},
		{time.Date(2024, 1, 15, 10, 30, 0, 0, time.UTC), `"2024-01-15T10:30:00Z"`},
		{time.Date(2024, 1, 15, 10, 30, 0, 123456789, time.UTC), `"2024-01-15T10:30:00.123Z"`},
		{time.Date(2024, 1, 15, 12, 30, 0, 500e6, time.FixedZone("x", 2*3600)), `"2024-01-15T10:30:00.5Z"`},
	}
	for _, tt := range tests {
		b, err := json.Marshal(wire.Time(tt.in))
		if err != nil || string(b) != tt.want {
			t.Errorf("Marshal(%v) = %s, %v; want %s", tt.in, b, err, tt.want)
		}
		var back wire.Time
		if err := json.Unmarshal(b, &back); err != nil {
			t.Errorf("Unmarshal(%s): %v", b, err)
		}
		if want := tt.in.Truncate(time.Millisecond); !time.Time(back).Equal(want) {
			t.Errorf("Unmarshal(%s) = %v, want %v", b, time.Time(back), want)
		}
	}
	var bad wire.Time
	if err := json.Unmarshal([]byte(`17`), &bad); err == nil {
		t.Error("a number was accepted as a time")
	}
	if _, err := wire.ParseTime("15/01/2024"); err == nil || !strings.Contains(err.Error(), "RFC 3339") {
		t.Errorf("ParseTime of a bad time: %v, want an error suggesting RFC 3339", err)
	}
}

func TestWriteJSONLReadsBack(t *testing.T) {
	t.Parallel()
	a, b := fullMemory(), fullMemory()
	b.ID, b.Content, b.Tags = "mem-2", "line one\nline two \u2028", nil
	var buf bytes.Buffer
	if err := wire.WriteJSONL(&buf, []*cairn.Memory{a, b}); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(buf.String(), "\n"); n != 2 {
		t.Fatalf("%d lines written, want 2:\n%s", n, buf.String())
	}
	if strings.Contains(buf.String(), `\u003c`) {
		t.Errorf("HTML was escaped: %s", buf.String())
	}
	recs := readAll(&buf)
	if len(recs) != 2 || recs[0].Err != nil || recs[1].Err != nil {
		t.Fatalf("read back %q", lines(recs))
	}
	if !reflect.DeepEqual(recs[0].Memory, a) {
		t.Errorf("read back %+v, want %+v", recs[0].Memory, a)
	}
	if recs[1].Memory.Content != b.Content || len(recs[1].Memory.Tags) != 0 {
		t.Errorf("read back %+v", recs[1].Memory)
	}
}
