package storesql

import (
	"slices"
	"testing"
	"testing/fstest"
	"time"
)

func TestMigrationsAreReadInOrderAndMisnamedFilesRefused(t *testing.T) {
	ms, err := Migrations(fstest.MapFS{
		"m/0010_b.sql": {Data: []byte("B")},
		"m/0002_a.sql": {Data: []byte("A")},
	}, "m")
	if err != nil || len(ms) != 2 || ms[0] != (Migration{2, "0002_a", "A"}) || ms[1] != (Migration{10, "0010_b", "B"}) {
		t.Fatalf("Migrations = %+v, %v", ms, err)
	}
	if _, err := Migrations(fstest.MapFS{"m/first.sql": {Data: []byte("x")}}, "m"); err == nil {
		t.Error("a file not named NNNN_name.sql was read")
	}
}

func TestTimesAndListsRoundTrip(t *testing.T) {
	at := time.Date(2026, 11, 23, 9, 0, 0, 123e6, time.FixedZone("x", 3600))
	if got := FromMS(MS(at)); !got.Equal(at) || got.Location() != time.UTC {
		t.Errorf("time %v came back as %v", at, got)
	}
	if MS(time.Time{}) != 0 || !FromMS(0).IsZero() {
		t.Error("the zero time is not stored as 0")
	}
	if xs := []string{"a b", "c/*.go"}; !slices.Equal(SplitList(JoinList(xs)), xs) || SplitList("") != nil {
		t.Error("lists do not round-trip")
	}
}
