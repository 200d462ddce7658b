package storetest

import (
	"testing"
	"time"

	"github.com/cairn-dev/cairn"
)

// The token part of the suite: the HTTP API's access tokens.

var tokenStoreTests = []struct {
	name string
	fn   func(t *testing.T, s cairn.Store)
}{
	{"TokensRoundTripAndAreFoundByHash", testTokensRoundTrip},
	{"TokenWithATakenHashOrIDConflicts", testTokenConflicts},
	{"DeletedTokenIsNotFound", testTokenDelete},
}

func putToken(t *testing.T, s cairn.Store, tok *cairn.Token) error {
	t.Helper()
	return s.Update(t.Context(), func(tx cairn.Tx) error { return tx.CreateToken(t.Context(), tok) })
}

func testTokensRoundTrip(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	a := &cairn.Token{ID: "tok-000000000001", Name: "ci", Project: "a", ReadOnly: true, Hash: "aa", CreatedAt: at}
	b := &cairn.Token{ID: "tok-000000000002", Project: "b", Hash: "bb", CreatedAt: at.Add(time.Second)}
	for _, tok := range []*cairn.Token{b, a} {
		if err := putToken(t, s, tok); err != nil {
			t.Fatal(err)
		}
	}
	if err := s.View(ctx, func(tx cairn.Tx) error {
		got, err := tx.FindTokenByHash(ctx, "aa")
		if err != nil {
			return err
		}
		if *got != *a {
			t.Errorf("FindTokenByHash = %+v, want %+v", got, a)
		}
		if _, err := tx.FindTokenByHash(ctx, "cc"); cairn.ErrorCode(err) != cairn.ENOTFOUND {
			t.Errorf("unknown hash: %v, want ENOTFOUND", err)
		}
		all, err := tx.FindTokens(ctx)
		if err != nil {
			return err
		}
		if len(all) != 2 || all[0].ID != a.ID || all[1].ID != b.ID {
			t.Errorf("FindTokens = %+v, want a then b (oldest first)", all)
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
}

// testTokenConflicts tries a second token with the same secret's hash and
// one with the same id.
func testTokenConflicts(t *testing.T, s cairn.Store) {
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	if err := putToken(t, s, &cairn.Token{ID: "tok-1", Project: "a", Hash: "aa", CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	for _, tok := range []*cairn.Token{
		{ID: "tok-2", Project: "a", Hash: "aa", CreatedAt: at},
		{ID: "tok-1", Project: "a", Hash: "bb", CreatedAt: at},
	} {
		if err := putToken(t, s, tok); cairn.ErrorCode(err) != cairn.ECONFLICT {
			t.Errorf("CreateToken(%+v) = %v, want ECONFLICT", tok, err)
		}
	}
}

func testTokenDelete(t *testing.T, s cairn.Store) {
	ctx := t.Context()
	at := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	if err := putToken(t, s, &cairn.Token{ID: "tok-1", Project: "a", Hash: "aa", CreatedAt: at}); err != nil {
		t.Fatal(err)
	}
	del := func() error {
		return s.Update(ctx, func(tx cairn.Tx) error { return tx.DeleteToken(ctx, "tok-1") })
	}
	if err := del(); err != nil {
		t.Fatal(err)
	}
	if err := del(); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("deleting again: %v, want ENOTFOUND", err)
	}
	if err := s.View(ctx, func(tx cairn.Tx) error {
		_, err := tx.FindTokenByHash(ctx, "aa")
		return err
	}); cairn.ErrorCode(err) != cairn.ENOTFOUND {
		t.Errorf("a deleted token is found: %v", err)
	}
}
