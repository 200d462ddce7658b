package cairn

import (
	"context"
	"time"
)

// Conflict is two live memories in conflict (ConflictTagPrefix), the
// older first.
type Conflict struct {
	Old, New *Memory
}

// ConflictService lists what a person has to resolve.
type ConflictService interface {
	// FindConflicts lists the service's project's unresolved conflicts,
	// newest first: pairs of live memories (at the service's clock) that
	// the engine linked because they contradict each other or share a
	// key across types. A pair one side of which was superseded, expired
	// or deleted is resolved and not listed.
	FindConflicts(ctx context.Context) ([]Conflict, error)
}

// ValueRecall asks for seed 002's recall: the memories trusted and used
// most.
type ValueRecall struct {
	Types []string // any of; nil: every type
	Agent string   // only what this agent learned; "": any
	// Limit is the most memories returned, from 1 to MaxLimit; 0 means
	// DefaultValueRecallLimit.
	Limit int
	// Session is the session recalling, recorded with the use.
	Session string
	// Record records the use of what is recalled (a read-only token's
	// recall is a preview: nothing is recorded).
	Record bool
}

// DefaultValueRecallLimit is how many memories a ValueRecall returns when
// its Limit is 0.
const DefaultValueRecallLimit = 20

// ValueRecallService is seed 002's recall, run where the memories are.
type ValueRecallService interface {
	// RecallByValue returns the live memories of the service's project
	// (and the global-scope ones) that r selects, ranked by confidence ×
	// (use count + 1), and records their use when r.Record, so that what
	// is recalled often ranks higher the next time. The memories are
	// returned as they were before the use was recorded; when only the
	// recording failed they are returned with its error. EINVALID for a
	// limit out of range.
	RecallByValue(ctx context.Context, r ValueRecall) ([]*Memory, error)
}

// CreatedPeriod is how many memories were created in one period, by
// type.
type CreatedPeriod struct {
	Start, End time.Time
	ByType     map[string]int
}

// MaxCreatedWeeks is the most weeks CreatedByWeek counts.
const MaxCreatedWeeks = 520

// OverviewService describes projects as a whole, for a person
// looking at them (the web page's projects list and charts).
type OverviewService interface {
	// Projects lists the projects that have memories, by name in byte
	// order, with how many memories each holds and its last activity: the
	// service's project only (if it has memories); every project when the
	// service is bound to none (Named("")) and may see them all.
	Projects(ctx context.Context) ([]ProjectSummary, error)
	// CreatedByWeek counts the service's project's memories created in
	// each of the last weeks (from 1 to MaxCreatedWeeks), by type, oldest
	// week first. Weeks start on Monday, 00:00 UTC; the last one holds
	// the service's clock. EINVALID for weeks out of range.
	CreatedByWeek(ctx context.Context, weeks int) ([]CreatedPeriod, error)
}

// TokenService administers the access tokens of the HTTP API, for the
// whole database. Whoever may call it may open any project: a server
// answers it only on its Unix socket, whose file only the database's
// owner can open, never to a request from the network (docs/security.md).
type TokenService interface {
	// CreateToken makes a token for project, read-only or not, and
	// returns its secret, shown this once (only its hash is stored), and
	// the token. EINVALID for an invalid project or name.
	CreateToken(ctx context.Context, project, name string, readOnly bool) (secret string, tok *Token, err error)
	// FindTokens lists every project's tokens, without their secrets.
	FindTokens(ctx context.Context) ([]*Token, error)
	// RevokeToken deletes the token with id; ENOTFOUND when there is
	// none.
	RevokeToken(ctx context.Context, id string) error
}
