// Package pgurl tells a PostgreSQL connection URL and writes one for
// messages, without the PostgreSQL driver, for the packages that only
// need to tell a database server's URL from a file's path.
package pgurl

import (
	"net/url"
	"strings"
)

// IsURL reports whether s names a PostgreSQL database: a postgres:// or
// postgresql:// URL.
func IsURL(s string) bool {
	return strings.HasPrefix(s, "postgres://") || strings.HasPrefix(s, "postgresql://")
}

// Redact returns the connection string without its password, for
// messages.
func Redact(conn string) string {
	u, err := url.Parse(conn)
	if err != nil || u.Scheme == "" {
		if i := strings.Index(conn, "://"); i >= 0 {
			return conn[:i+3] + "…"
		}
		return "the database"
	}
	if u.User != nil {
		if _, ok := u.User.Password(); ok {
			u.User = url.UserPassword(u.User.Username(), "xxxxx")
		}
	}
	q := u.Query()
	if q.Has("password") {
		q.Set("password", "xxxxx")
		u.RawQuery = q.Encode()
	}
	return u.String()
}
