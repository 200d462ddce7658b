//go:build nopostgres

package main

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgurl"
)

// openPostgres refuses: this build has no PostgreSQL driver. The
// nopostgres tag makes a smaller binary that starts faster, for those
// who keep their memories in SQLite only.
func openPostgres(ctx context.Context, url string, readOnly bool) (cairn.Store, error) {
	return nil, cairn.Errorf(cairn.EINVALID, "--db %s: this cairn was built without PostgreSQL (the nopostgres build tag); use a build without that tag, or a SQLite file", pgurl.Redact(url))
}
