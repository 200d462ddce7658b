package cairn

import "time"

// Token is an access token of the HTTP API: it lets its holder read (and,
// unless ReadOnly, change) one project's memories. Only the SHA-256 hash
// of the secret is stored; the secret itself is shown once, when the token
// is created.
type Token struct {
	ID        string // "tok-" and 12 lowercase hex digits; what `cairn token revoke` takes
	Name      string // a label chosen by the user, may be ""
	Project   string
	ReadOnly  bool
	Hash      string // lowercase hex SHA-256 of the secret
	CreatedAt time.Time
}
