//go:build !nopostgres

package main

import (
	"context"
	"errors"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/postgres"
)

// openPostgres opens the PostgreSQL database at url (see openStore). A
// build with the nopostgres tag has none (postgres_off.go).
func openPostgres(ctx context.Context, url string, readOnly bool) (cairn.Store, error) {
	st, err := postgres.Open(ctx, url, &postgres.Options{ReadOnly: readOnly})
	if readOnly && errors.Is(err, postgres.ErrNotInitialized) {
		return nil, errNoDatabase
	}
	if err != nil {
		return nil, err
	}
	return st, nil
}
