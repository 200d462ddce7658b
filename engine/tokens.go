package engine

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/hex"
	"strings"

	"github.com/cairn-dev/cairn"
)

// TokenPrefix starts every access token's secret, so that one pasted
// into a memory or a log is recognised and redacted (package redact).
const TokenPrefix = "cairn_"

// tokenEncoding writes a secret's 32 random bytes as 52 lowercase letters
// and digits.
var tokenEncoding = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// HashToken is the SHA-256 of a token's secret, in lowercase hex: what the
// store keeps instead of the secret.
func HashToken(secret string) string {
	sum := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(sum[:])
}

// CreateToken makes an access token of the HTTP API for project and
// returns its secret, which is not stored and cannot be shown again.
// EINVALID for an invalid project or a name longer than MaxNameBytes.
func (e *Engine) CreateToken(ctx context.Context, project, name string, readOnly bool) (string, *cairn.Token, error) {
	if !cairn.ValidProject(project) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	if len(name) > cairn.MaxNameBytes || strings.ContainsFunc(name, isControl) {
		return "", nil, cairn.Errorf(cairn.EINVALID, "a token name is at most %d bytes without control characters", cairn.MaxNameBytes)
	}
	var b [32]byte
	rand.Read(b[:])
	secret := TokenPrefix + tokenEncoding.EncodeToString(b[:])
	var id [6]byte
	rand.Read(id[:])
	tok := &cairn.Token{ID: "tok-" + hex.EncodeToString(id[:]), Name: name, Project: project,
		ReadOnly: readOnly, Hash: HashToken(secret), CreatedAt: e.Now()}
	err := e.store.Update(ctx, func(tx cairn.Tx) error { return tx.CreateToken(ctx, tok) })
	if err != nil {
		return "", nil, err
	}
	return secret, tok, nil
}

func isControl(r rune) bool { return r < 0x20 || r == 0x7f }

// FindTokens returns every access token (never their secrets), oldest
// first.
func (e *Engine) FindTokens(ctx context.Context) ([]*cairn.Token, error) {
	var toks []*cairn.Token
	err := e.store.View(ctx, func(tx cairn.Tx) (err error) {
		toks, err = tx.FindTokens(ctx)
		return err
	})
	return toks, err
}

// RevokeToken deletes the access token with id; requests bearing its
// secret are refused from then on. ENOTFOUND.
func (e *Engine) RevokeToken(ctx context.Context, id string) error {
	return e.store.Update(ctx, func(tx cairn.Tx) error { return tx.DeleteToken(ctx, strings.TrimSpace(id)) })
}

// Authenticate returns the token whose secret is secret. EUNAUTHORIZED
// when there is none (never stored, or revoked); the message never
// repeats the secret.
func (e *Engine) Authenticate(ctx context.Context, secret string) (*cairn.Token, error) {
	var tok *cairn.Token
	err := e.store.View(ctx, func(tx cairn.Tx) (err error) {
		tok, err = tx.FindTokenByHash(ctx, HashToken(secret))
		return err
	})
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, cairn.Errorf(cairn.EUNAUTHORIZED, "the token is not valid (unknown or revoked)")
	}
	return tok, err
}
