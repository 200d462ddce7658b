// Package storesql is what cairn's SQL backends (sqlite, postgres) share:
// their numbered, forward-only migrations, and how a memory's times and
// lists and an embedding's vector are stored in columns, so that both
// store the same values.
package storesql

import (
	"encoding/binary"
	"fmt"
	"io/fs"
	"math"
	"path"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn"
)

// Migration is one migration file, NNNN_name.sql.
type Migration struct {
	Version int    // NNNN
	Name    string // the file's name without ".sql"
	SQL     string
}

// Migrations reads the migration files in dir of fsys, oldest first. A
// file not named NNNN_name.sql is an error.
func Migrations(fsys fs.FS, dir string) ([]Migration, error) {
	entries, err := fs.ReadDir(fsys, dir)
	if err != nil {
		return nil, err
	}
	var ms []Migration
	for _, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		v, err := strconv.Atoi(num)
		if !ok || err != nil {
			return nil, fmt.Errorf("migration file %s is not named NNNN_name.sql", e.Name())
		}
		b, err := fs.ReadFile(fsys, path.Join(dir, e.Name()))
		if err != nil {
			return nil, err
		}
		ms = append(ms, Migration{Version: v, Name: strings.TrimSuffix(e.Name(), ".sql"), SQL: string(b)})
	}
	sort.Slice(ms, func(i, j int) bool { return ms[i].Version < ms[j].Version })
	return ms, nil
}

// MS is t as stored: Unix milliseconds, 0 for the zero time.
func MS(t time.Time) int64 {
	if t.IsZero() {
		return 0
	}
	return t.UnixMilli()
}

// FromMS is the time MS stored (UTC), the zero time for 0.
func FromMS(v int64) time.Time {
	if v == 0 {
		return time.Time{}
	}
	return time.UnixMilli(v).UTC()
}

// JoinList is a list (tags, file references) as stored: its items on
// lines of their own (items hold no line breaks).
func JoinList(xs []string) string { return strings.Join(xs, "\n") }

// SplitList is the list JoinList stored; nil for "".
func SplitList(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// EncodeVector is an embedding as stored: float32 little-endian.
func EncodeVector(v []float32) []byte {
	b := make([]byte, 4*len(v))
	for i, x := range v {
		binary.LittleEndian.PutUint32(b[4*i:], math.Float32bits(x))
	}
	return b
}

// DecodeVector is the vector EncodeVector stored; EINTERNAL for bytes no
// vector was stored as.
func DecodeVector(b []byte) ([]float32, error) {
	if len(b) == 0 || len(b)%4 != 0 {
		return nil, cairn.Errorf(cairn.EINTERNAL, "a stored vector is damaged (%d bytes)", len(b))
	}
	v := make([]float32, len(b)/4)
	for i := range v {
		v[i] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*i:]))
	}
	return v, nil
}

// Rows is what the result sets of both drivers (database/sql, pgx) offer.
type Rows interface {
	Next() bool
	Scan(dest ...any) error
	Err() error
}

// EachVector calls fn with each row of rows, read as (id, project, global,
// content hash, encoded vector), in order; it stops at fn's first error.
// translate turns the driver's errors into cairn's (the backend's own).
func EachVector(rows Rows, translate func(err error, op string) error, fn func(cairn.MemoryVector) error) error {
	var data []byte
	for rows.Next() {
		var mv cairn.MemoryVector
		if err := rows.Scan(&mv.ID, &mv.Project, &mv.Global, &mv.Hash, &data); err != nil {
			return translate(err, "read vectors")
		}
		var err error
		if mv.Vector, err = DecodeVector(data); err != nil {
			return err
		}
		if err := fn(mv); err != nil {
			return err
		}
	}
	return translate(rows.Err(), "read vectors")
}

// FoldableIteration is the condition, on a row of the iterations table,
// that it may fold into iteration_totals: a done iteration of its task
// comes at or after it (later, or in the same millisecond with a higher or
// equal number), so that a task's failures since its latest done are kept.
// Both the statement that folds and the one that deletes use it, and it
// is valid SQL in both backends.
const FoldableIteration = `EXISTS (SELECT 1 FROM iterations d WHERE d.project = iterations.project AND d.task = iterations.task AND d.outcome = 'done'
AND (d.created_at > iterations.created_at OR (d.created_at = iterations.created_at AND d.iteration >= iterations.iteration)))`

// Counts reads rows of (name, count) into a map; op names the read in
// translate's errors. An empty result is an empty map, never nil.
func Counts(rows Rows, translate func(err error, op string) error, op string) (map[string]int64, error) {
	return Pairs[int64](rows, translate, op)
}

// Pairs reads rows of (key, value) into a map, a later row's value for
// a key replacing an earlier one's; op names the read in translate's
// errors. An empty result is an empty map, never nil. The caller closes
// rows.
func Pairs[V any](rows Rows, translate func(err error, op string) error, op string) (map[string]V, error) {
	out := map[string]V{}
	for rows.Next() {
		var k string
		var v V
		if err := rows.Scan(&k, &v); err != nil {
			return nil, translate(err, op)
		}
		out[k] = v
	}
	return out, translate(rows.Err(), op)
}

// Column reads rows of one column into a slice, in order; op names the
// read in translate's errors. The caller closes rows.
func Column[V any](rows Rows, translate func(err error, op string) error, op string) ([]V, error) {
	var out []V
	for rows.Next() {
		var v V
		if err := rows.Scan(&v); err != nil {
			return nil, translate(err, op)
		}
		out = append(out, v)
	}
	return out, translate(rows.Err(), op)
}

// LifecycleAfter is the creation time a lifecycle page starts after, as
// stored (MS): the smallest value for the first page, so that a memory
// created before 1970 (a negative value) or stored with no creation time
// (0) is read too.
func LifecycleAfter(page cairn.LifecyclePage) int64 {
	if page.AfterCreated.IsZero() && page.AfterID == "" {
		return math.MinInt64
	}
	return MS(page.AfterCreated)
}

// CheckSettings is what both backends refuse of settings to store: an
// empty project or document, or a document larger than
// cairn.MaxSettingsBytes.
func CheckSettings(s cairn.StoredSettings) error {
	switch {
	case s.Project == "":
		return cairn.Errorf(cairn.EINVALID, "stored settings need their project")
	case s.Document == "":
		return cairn.Errorf(cairn.EINVALID, "the settings of project %s are empty", s.Project)
	case len(s.Document) > cairn.MaxSettingsBytes:
		return cairn.Errorf(cairn.EINVALID, "the settings of project %s are %d bytes, more than the %d a project's settings may take", s.Project, len(s.Document), cairn.MaxSettingsBytes)
	}
	return nil
}
