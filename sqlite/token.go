package sqlite

import (
	"context"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/internal/storesql"
)

// CreateToken implements cairn.Tx.
func (t *Tx) CreateToken(ctx context.Context, tok *cairn.Token) error {
	_, err := t.exec(ctx, "create token", sqlInsertToken, tok.ID, tok.Name, tok.Project, tok.ReadOnly, tok.Hash, storesql.MS(tok.CreatedAt))
	if cairn.ErrorCode(err) == cairn.ECONFLICT {
		return cairn.WrapError(cairn.ECONFLICT, err, "a token with id %s or the same secret exists", tok.ID)
	}
	return err
}

// FindTokenByHash implements cairn.Tx.
func (t *Tx) FindTokenByHash(ctx context.Context, hash string) (*cairn.Token, error) {
	toks, err := t.findTokens(ctx, sqlFindTokenByHash, hash)
	if err != nil {
		return nil, err
	}
	if len(toks) == 0 {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no such token")
	}
	return toks[0], nil
}

// FindTokens implements cairn.Tx.
func (t *Tx) FindTokens(ctx context.Context) ([]*cairn.Token, error) {
	return t.findTokens(ctx, sqlFindTokens)
}

func (t *Tx) findTokens(ctx context.Context, q string, args ...any) ([]*cairn.Token, error) {
	rows, err := t.query(ctx, "find tokens", q, args...)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []*cairn.Token
	for rows.Next() {
		var tok cairn.Token
		var created int64
		if err := rows.Scan(&tok.ID, &tok.Name, &tok.Project, &tok.ReadOnly, &tok.Hash, &created); err != nil {
			return nil, translate(err, "read token")
		}
		tok.CreatedAt = storesql.FromMS(created)
		out = append(out, &tok)
	}
	return out, translate(rows.Err(), "read tokens")
}

// DeleteToken implements cairn.Tx.
func (t *Tx) DeleteToken(ctx context.Context, id string) error {
	res, err := t.exec(ctx, "delete token", sqlDeleteToken, id)
	if err != nil {
		return err
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return cairn.Errorf(cairn.ENOTFOUND, "no token with id %q", id)
	}
	return nil
}
