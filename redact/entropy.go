package redact

import (
	"encoding/base64"
	"math"
	"strings"
	"unicode/utf8"
)

const (
	// minEntropyLen is the shortest run considered by the high-entropy check.
	minEntropyLen = 32
	// entropyThreshold is the Shannon entropy, in bits per byte, a run must
	// reach. Random base62/base64 strings of 32+ bytes score about 4.3–5.5;
	// English identifiers and paths of the same length about 3.4–4.2.
	entropyThreshold = 4.0
	// maxWordiness is the largest share of a run's bytes that may sit in
	// word-like stretches ([A-Z]?[a-z]{3,}). Random tokens score about
	// 0.0–0.4; camelCase identifiers, paths and prose 0.6–1.0.
	maxWordiness = 0.5
)

// entropyGap looks for high-entropy runs in s[lo:hi].
func (sc *scanner) entropyGap(lo, hi int) {
	s := sc.s
	for i := lo; i < hi; {
		if !is(s[i], fB64) {
			i++
			continue
		}
		j := i
		for j < hi && is(s[j], fB64) {
			j++
		}
		if j-i >= minEntropyLen {
			sc.entropyRun(i, j)
		}
		i = j
	}
}

// entropyRun splits a run at every '=' that is not trailing padding
// (key=value) and checks the pieces.
func (sc *scanner) entropyRun(a, b int) {
	s := sc.s
	st := a
	for p := a; p < b; p++ {
		if s[p] == '=' && p+1 < b && s[p+1] != '=' {
			if p-st >= minEntropyLen {
				sc.entropyPiece(st, p)
			}
			st = p + 1
		}
	}
	if b-st >= minEntropyLen {
		sc.entropyPiece(st, b)
	}
}

// hashAlgs are names that, before ':' or '-' or '=', announce a digest:
// go.sum "h1:", SRI "sha512-", "sha256:", "md5=".
var hashAlgs = []string{"h1", "md5", "sha1", "sha224", "sha256", "sha384", "sha512", "sha3-256", "sha3-512", "blake2b", "blake3"}

func (sc *scanner) entropyPiece(a, b int) {
	s := sc.s
	a0 := a
	for a < b && strings.IndexByte("-_/+=", s[a]) >= 0 {
		a++
	}
	for b > a && strings.IndexByte("-_/+", s[b-1]) >= 0 {
		b--
	}
	if b-a < minEntropyLen {
		return
	}
	t := s[a:b]
	var f uint16
	hex := true
	for i := 0; i < len(t); i++ {
		c := ctab[t[i]]
		f |= c
		if c&(fHex|fDash) == 0 {
			hex = false
		}
	}
	if f&fUpper == 0 || f&fLower == 0 || f&fDigit == 0 || hex {
		return
	}
	if isDigestContext(s, a0) || isSSHKeyBlob(t) || hasSuffixFold(s[max(0, a0-16):a0], "base64,") {
		return
	}
	for _, z := range sc.zones {
		if z[0] <= a && a < z[1] {
			return
		}
	}
	if wordiness(t) > maxWordiness || shannon(t) < entropyThreshold || sc.inURL(a) || isBase64OfText(t) {
		return
	}
	sc.add(a, b, "high-entropy", prioEntropy)
}

// isDigestContext reports whether the run at a is a digest: it starts with
// "<alg>-" or "<alg>=", or follows "<alg>:" or "<alg>=".
func isDigestContext(s string, a int) bool {
	for _, h := range hashAlgs {
		if hasPrefixFold(s[a:], h) && a+len(h) < len(s) && (s[a+len(h)] == '-' || s[a+len(h)] == '=') {
			return true
		}
		if a > len(h) && (s[a-1] == ':' || s[a-1] == '=') && hasPrefixFold(s[a-1-len(h):], h) &&
			(a-1-len(h) == 0 || !isAlnum(s[a-2-len(h)])) {
			return true
		}
	}
	return false
}

// isSSHKeyBlob reports whether t is the base64 body of an SSH public key
// ("ssh-rsa AAAAB3NzaC1yc2E…", "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5…",
// "ecdsa-sha2-nistp256 AAAAE2VjZHNh…"): public, not secret.
func isSSHKeyBlob(t string) bool {
	return strings.HasPrefix(t, "AAAAB3NzaC1") || strings.HasPrefix(t, "AAAAC3NzaC1") ||
		strings.HasPrefix(t, "AAAAE2VjZHNh") || strings.HasPrefix(t, "AAAAB3NzaC")
}

// shannon returns the Shannon entropy of t in bits per byte.
func shannon(t string) float64 {
	var counts [256]int
	for i := 0; i < len(t); i++ {
		counts[t[i]]++
	}
	n := float64(len(t))
	h := 0.0
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}

// wordiness returns the share of t's bytes that belong to word-like
// stretches: an optional capital followed by three or more lower-case
// letters ("Store", "concurrent", "usr").
func wordiness(t string) float64 {
	inWords := 0
	for i := 0; i < len(t); {
		st := i
		if is(t[i], fUpper) {
			i++
		}
		j := i
		for j < len(t) && is(t[j], fLower) {
			j++
		}
		if j-i >= 3 {
			inWords += j - st
		}
		if j == st {
			j++
		}
		i = j
	}
	return float64(inWords) / float64(len(t))
}

// isBase64OfText reports whether t is base64 (standard or URL alphabet,
// padded or not) of printable UTF-8 text in which no secret is found:
// encoded prose, JSON test fixtures, a kubeconfig's
// certificate-authority-data (a PEM certificate). Random tokens decode to
// binary bytes; the chance that 24 random bytes are all printable text is
// below 1e-10. Base64 of text that holds a secret (a private key, a
// password assignment) is not text of this kind and stays redacted.
func isBase64OfText(t string) bool {
	var dec []byte
	var err error
	switch {
	case strings.ContainsAny(t, "-_"):
		if strings.ContainsAny(t, "+/") {
			return false
		}
		dec, err = base64.RawURLEncoding.DecodeString(strings.TrimRight(t, "="))
	default:
		dec, err = base64.RawStdEncoding.DecodeString(strings.TrimRight(t, "="))
	}
	if err != nil || !utf8.Valid(dec) {
		return false
	}
	for _, r := range string(dec) {
		if r < 0x20 && r != '\n' && r != '\r' && r != '\t' || r == 0x7f || r == utf8.RuneError {
			return false
		}
	}
	return len(detect(string(dec))) == 0
}
