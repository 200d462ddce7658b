// Package pgtest gives tests a PostgreSQL schema of their own on the
// server CAIRN_TEST_POSTGRES_URL names, so that tests run in parallel on
// one database; without the variable they skip, saying what is not tested.
package pgtest

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"net/url"
	"os"
	"testing"

	"github.com/jackc/pgx/v5"
)

// URL returns the test server's URL, or skips t saying that what is not
// tested.
func URL(t testing.TB, what string) string {
	t.Helper()
	u := os.Getenv("CAIRN_TEST_POSTGRES_URL")
	if u == "" {
		t.Skip("CAIRN_TEST_POSTGRES_URL is not set: " + what + " is not tested (set it to postgres://user@host:port/db?sslmode=disable)")
	}
	return u
}

// Schema returns the name of a fresh schema on the test server, dropped
// with everything in it when the test ends (it is created by whoever
// opens it first). It skips t as URL does.
func Schema(t testing.TB, what string) string {
	t.Helper()
	base := URL(t, what)
	b := make([]byte, 6)
	rand.Read(b)
	name := "cairn_test_" + hex.EncodeToString(b)
	t.Cleanup(func() {
		ctx := context.Background()
		c, err := pgx.Connect(ctx, base)
		if err != nil {
			t.Errorf("drop schema %s: %v", name, err)
			return
		}
		defer c.Close(ctx)
		if _, err := c.Exec(ctx, "DROP SCHEMA IF EXISTS "+pgx.Identifier{name}.Sanitize()+" CASCADE"); err != nil {
			t.Errorf("drop schema %s: %v", name, err)
		}
	})
	return name
}

// SchemaURL returns the test server's URL with a fresh schema (see
// Schema) as its search_path.
func SchemaURL(t testing.TB, what string) string {
	t.Helper()
	name := Schema(t, what)
	u, err := url.Parse(URL(t, what))
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	q.Set("search_path", name)
	u.RawQuery = q.Encode()
	return u.String()
}
