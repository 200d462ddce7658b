package sqlite_test

import (
	"bytes"
	"fmt"
	"path/filepath"
	"testing"

	"github.com/cairn-dev/cairn"
)

// TestPostingsOwnTheirBytes: the postings Postings and ScanPostings return
// are the driver's slices, kept without a copy; each row's must stay its
// own while later rows are read and after the statement closes, or the
// postings cached between searches would change under them.
func TestPostingsOwnTheirBytes(t *testing.T) {
	t.Parallel()
	ctx := t.Context()
	s := open(t, filepath.Join(t.TempDir(), "c.db"), nil)
	defer s.Close()
	var want []cairn.TermPostings
	for i := range 40 {
		data := bytes.Repeat([]byte{byte(i + 1)}, 100+i*37)
		want = append(want, cairn.TermPostings{Term: fmt.Sprintf("term%02d", i), DF: int64(i + 1), Data: data})
	}
	terms := make([]string, len(want))
	for i, tp := range want {
		terms[i] = tp.Term
	}
	if err := s.Update(ctx, func(tx cairn.Tx) error { return tx.ReplacePostings(ctx, "p", want) }); err != nil {
		t.Fatal(err)
	}
	var got, scanned []cairn.TermPostings
	err := s.View(ctx, func(tx cairn.Tx) error {
		var err error
		if got, err = tx.Postings(ctx, "p", append([]string{"absent"}, terms...)); err != nil {
			return err
		}
		scanned, err = tx.ScanPostings(ctx, "p", "", 1000)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, tps := range map[string][]cairn.TermPostings{"Postings": got, "ScanPostings": scanned} {
		if len(tps) != len(want) {
			t.Fatalf("%s: %d terms, want %d", name, len(tps), len(want))
		}
		for i, tp := range tps {
			w := want[i]
			if tp.Term != w.Term || tp.DF != w.DF || !bytes.Equal(tp.Data, w.Data) {
				t.Errorf("%s: term %d is %q (df %d, %d bytes, first %v), want %q (df %d, %d bytes of %d)",
					name, i, tp.Term, tp.DF, len(tp.Data), tp.Data[:min(1, len(tp.Data))], w.Term, w.DF, len(w.Data), w.Data[0])
			}
		}
	}
	// The two reads share no bytes either.
	got[0].Data[0]++
	if scanned[0].Data[0] != want[0].Data[0] {
		t.Error("Postings and ScanPostings returned the same bytes for one term")
	}
}
