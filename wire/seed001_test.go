package wire_test

import (
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

func TestSeed001ItemsImportWithoutLoss(t *testing.T) {
	t.Parallel()
	in := strings.Join([]string{
		`{"id":"mem-a1b2c3d4","type":"decision","content":"Chose dayjs over moment.js for smaller bundle size","source":"task","sourceId":"task-xyz","projectPath":"/path/to/project","createdBy":"Alice","createdAt":"2026-02-04T10:30:00.000Z"}`,
		`{"id":"mem-b","type":"pattern","content":"x","source":"conversation","sourceId":"chat-9","projectPath":"C:\\work\\shop\\","createdAt":"2026-02-05T00:00:00Z","updatedAt":"2026-02-06T00:00:00Z"}`,
		`{"id":"mem-c","type":"note","content":"y","source":"Slack","sourceId":"T42"}`,
		`{"id":"mem-d","project":"given","type":"note","content":"z","created_by_agent":"bob","createdBy":"Alice","created_at":"2026-01-01T00:00:00Z","createdAt":"2026-02-01T00:00:00Z"}`,
		`{"id":"mem-e","type":"note","content":"w","createdAt":"yesterday"}`,
	}, "\n")
	var got []cairn.ImportRecord
	for rec := range wire.Read(strings.NewReader(in)) {
		got = append(got, rec)
	}
	if len(got) != 5 {
		t.Fatalf("%d records", len(got))
	}
	a := got[0].Memory
	if a.Source != cairn.SourceAutomatic || a.TaskID != "task-xyz" || a.Project != "project" || a.Agent != "Alice" ||
		!a.CreatedAt.Equal(time.Date(2026, 2, 4, 10, 30, 0, 0, time.UTC)) {
		t.Errorf("task item: %+v", a)
	}
	b := got[1].Memory
	if b.Source != cairn.SourceExtracted || b.SessionID != "chat-9" || b.Project != "shop" || !b.UpdatedAt.Equal(time.Date(2026, 2, 6, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("conversation item: %+v", b)
	}
	c := got[2].Memory
	if c.Source != cairn.SourceImported || !slices.Equal(c.Tags, []string{"source:slack", "source-id:t42"}) {
		t.Errorf("another source: %+v", c)
	}
	// cairn's own fields win over the seed's.
	d := got[3].Memory
	if d.Project != "given" || d.Agent != "bob" || !d.CreatedAt.Equal(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)) {
		t.Errorf("own fields: %+v", d)
	}
	// A bad time in the seed's field is an error that names it.
	if got[4].Err == nil || !strings.Contains(got[4].Err.Error(), "createdAt") {
		t.Errorf("bad createdAt: %v", got[4].Err)
	}
}
