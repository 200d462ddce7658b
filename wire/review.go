package wire

import "github.com/cairn-dev/cairn"

// Conflict is one pair of `cairn conflicts --json` and of GET /conflicts:
// the older memory first.
type Conflict struct {
	Old *Memory `json:"old"`
	New *Memory `json:"new"`
}

// ConflictsOut is the answer of GET /conflicts.
type ConflictsOut struct {
	Conflicts []Conflict `json:"conflicts"`
}

// ConflictsOf is the JSON form of cs: never nil.
func ConflictsOf(cs []cairn.Conflict) []Conflict {
	out := make([]Conflict, 0, len(cs))
	for _, c := range cs {
		out = append(out, Conflict{FromMemory(c.Old), FromMemory(c.New)})
	}
	return out
}

// RecallIn is the body of POST /recall: seed 002's recall by value.
type RecallIn struct {
	Types   []string `json:"types,omitempty"`
	Agent   string   `json:"agent,omitempty"`
	Limit   int      `json:"limit,omitempty"`
	Session string   `json:"session,omitempty"`
	Record  bool     `json:"record,omitempty"`
}

// MemoriesOut is an answer that is a list of memories (POST /recall).
type MemoriesOut struct {
	Memories []*Memory `json:"memories"`
}

// MemoriesOf is the JSON form of ms: never nil.
func MemoriesOf(ms []*cairn.Memory) []*Memory {
	out := make([]*Memory, 0, len(ms))
	for _, m := range ms {
		out = append(out, FromMemory(m))
	}
	return out
}

// CreatedOut is the answer of GET /stats/created: the memories created in
// each of the last weeks, by type, oldest week first.
type CreatedOut struct {
	Periods []Period `json:"periods"`
}

// Period is one period of CreatedOut.
type Period struct {
	Start  Time           `json:"start"`
	End    Time           `json:"end"`
	ByType map[string]int `json:"by_type"`
}

// CreatedOf is the JSON form of ps.
func CreatedOf(ps []cairn.CreatedPeriod) CreatedOut {
	out := CreatedOut{Periods: make([]Period, 0, len(ps))}
	for _, p := range ps {
		out.Periods = append(out.Periods, Period{Start: Time(p.Start), End: Time(p.End), ByType: p.ByType})
	}
	return out
}

// Token is an access token as `cairn token list --json` and GET
// /api/tokens show it: never its secret nor its hash.
type Token struct {
	ID        string `json:"id"`
	Name      string `json:"name,omitempty"`
	Project   string `json:"project"`
	ReadOnly  bool   `json:"read_only"`
	CreatedAt Time   `json:"created_at"`
}

// TokenOf is the JSON form of t.
func TokenOf(t *cairn.Token) Token {
	return Token{ID: t.ID, Name: t.Name, Project: t.Project, ReadOnly: t.ReadOnly, CreatedAt: Time(t.CreatedAt)}
}

// ToToken is the token w describes (its hash unknown).
func (w Token) ToToken() *cairn.Token {
	return &cairn.Token{ID: w.ID, Name: w.Name, Project: w.Project, ReadOnly: w.ReadOnly, CreatedAt: w.CreatedAt.Time()}
}

// TokenIn is the body of POST /api/tokens.
type TokenIn struct {
	Project  string `json:"project"`
	Name     string `json:"name,omitempty"`
	ReadOnly bool   `json:"read_only,omitempty"`
}

// NewToken is a created token with its secret, shown this once: the
// answer of POST /api/tokens and of `cairn token create --json`.
type NewToken struct {
	Token
	Secret string `json:"token"`
}

// TokensOut is the answer of GET /api/tokens.
type TokensOut struct {
	Tokens []Token `json:"tokens"`
}
