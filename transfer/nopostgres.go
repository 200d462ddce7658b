//go:build nopostgres

package transfer

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/pgurl"
)

// A cairn built with the nopostgres tag copies between SQLite files only.

func openPostgresSource(ctx context.Context, loc string) (source, error) {
	return nil, noPostgres(loc)
}

func openPostgresTarget(ctx context.Context, loc string) (target, error) {
	return nil, noPostgres(loc)
}

func noPostgres(loc string) error {
	return cairn.Errorf(cairn.EINVALID, "%s: this cairn was built without PostgreSQL (the nopostgres build tag); use a build without that tag", pgurl.Redact(loc))
}
