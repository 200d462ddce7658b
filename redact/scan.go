package redact

import (
	"math/bits"
	"sort"
	"strings"
	"sync"
)

// Byte classes.
const (
	fUpper uint16 = 1 << iota
	fLower
	fDigit
	fUnder  // _
	fDash   // -
	fDot    // .
	fPlus   // +
	fSlash  // /
	fEq     // =
	fHex    // 0-9 a-f A-F
	fSpace  // space, tab, CR, LF, VT, FF
	fKey    // may appear in an assignment key: A-Z a-z 0-9 _ . -
	fB64    // may appear in a high-entropy run: A-Z a-z 0-9 + / = _ -
	fTilde  // ~
	fNotHex // anything but 0-9 a-f A-F

	fAlnum   = fUpper | fLower | fDigit
	fWord    = fAlnum | fUnder
	fB64URL  = fAlnum | fUnder | fDash
	fUpAlnum = fUpper | fDigit
)

var ctab [256]uint16

// tablesOnce fills the package's tables on first use rather than at
// start-up: a cairn process that only forwards a command to a server never
// redacts, and tables built at start-up cost it page faults.
var tablesOnce sync.Once

// ready fills the tables; String calls it first.
func ready() {
	tablesOnce.Do(func() {
		fillCtab()
		fillPrefixRules()
		fillSuffixes()
	})
}

func fillCtab() {
	for c := 'A'; c <= 'Z'; c++ {
		ctab[c] |= fUpper | fKey | fB64
	}
	for c := 'a'; c <= 'z'; c++ {
		ctab[c] |= fLower | fKey | fB64
	}
	for c := '0'; c <= '9'; c++ {
		ctab[c] |= fDigit | fHex | fKey | fB64
	}
	for _, c := range "abcdefABCDEF" {
		ctab[c] |= fHex
	}
	ctab['_'] |= fUnder | fKey | fB64
	ctab['-'] |= fDash | fKey | fB64
	ctab['.'] |= fDot | fKey
	ctab['+'] |= fPlus | fB64
	ctab['/'] |= fSlash | fB64
	ctab['='] |= fEq | fB64
	ctab['~'] |= fTilde
	for c := range ctab {
		if ctab[c]&fHex == 0 {
			ctab[c] |= fNotHex
		}
	}
	for _, c := range " \t\r\n\v\f" {
		ctab[c] |= fSpace
	}
}

func is(c byte, f uint16) bool { return ctab[c]&f != 0 }
func isAlnum(c byte) bool      { return ctab[c]&fAlnum != 0 }
func isSpace(c byte) bool      { return ctab[c]&fSpace != 0 }
func isHSpace(c byte) bool     { return c == ' ' || c == '\t' }

// Priorities decide the kind of a merged span when detections overlap.
const (
	prioEntropy int8 = iota
	prioAssign
	prioHeader
	prioSpecific
)

type span struct {
	start, end int
	kind       string
	prio       int8
}

// scanner finds secrets in one text. It makes a single pass over the bytes,
// stopping only at anchors (the first byte of a known prefix at a word start,
// '=', ':', "-----BEGIN "), and then a second, table-driven pass for
// high-entropy runs between what the first found.
type scanner struct {
	s     string
	found []span
	zones [][2]int // [start, end) regions exempt from high-entropy detection

	// horizon is the end of the last assignment value examined; separators
	// before it are inside that value and are not examined again.
	horizon int
	// runs caches the last run found per byte-class mask (see runEnd).
	runs [8]run
	// endFrom/endAt cache the last search for "-----END ": the first one at
	// or after endFrom is at endAt (-1: none).
	endFrom, endAt int
	// cmd is the shell command of the last flag examined (see commandAt).
	cmd command
	// pgWord is the start of the last word read as a .pgpass entry (see
	// pgpassWord).
	pgWord int
}

// run is a maximal stretch s[from:to] of bytes of one class mask, with the
// last offset at which each byte-class bit occurs in it.
type run struct {
	mask     uint16
	from, to int
	last     [16]int
}

// flagsFrom returns the union of the byte classes of s[p:r.to].
func (r *run) flagsFrom(p int) uint16 {
	var f uint16
	for b := range r.last {
		if r.last[b] >= p {
			f |= 1 << b
		}
	}
	return f
}

// runEnd returns the end of the run of bytes of class mask starting at p,
// and the union of the byte classes of s[p:end]. Runs are cached per mask,
// with where each class last occurs, so that overlapping candidates
// (crafted input like "sk-sk-sk-…", where every "sk-" starts a candidate
// that extends to the end) cost linear time in total, checks included.
func (sc *scanner) runEnd(p int, mask uint16) (int, uint16) {
	s := sc.s
	slot := -1
	for k := range sc.runs {
		r := &sc.runs[k]
		if r.mask == mask {
			if r.from <= p && p <= r.to {
				return r.to, r.flagsFrom(p)
			}
			slot = k
			break
		}
		if r.mask == 0 {
			slot = k
			break
		}
	}
	if slot < 0 {
		slot = int(mask) % len(sc.runs)
	}
	r := &sc.runs[slot]
	r.mask, r.from = mask, p
	for b := range r.last {
		r.last[b] = -1
	}
	e := p
	for e < len(s) && ctab[s[e]]&mask != 0 {
		for f := ctab[s[e]]; f != 0; f &= f - 1 {
			r.last[bits.TrailingZeros16(f)] = e
		}
		e++
	}
	r.to = e
	return e, r.flagsFrom(p)
}

func (sc *scanner) add(start, end int, kind string, prio int8) {
	if start < 0 || end > len(sc.s) || start >= end {
		return
	}
	sc.found = append(sc.found, span{start, end, kind, prio})
}

func (sc *scanner) scan() {
	s := sc.s
	sc.pgpass(0)
	sc.tableRow(0)
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !anchor[c] {
			continue
		}
		if len(prefixRules[c]) > 0 && (i == 0 || !isAlnum(s[i-1])) {
			if end := sc.prefix(i); end > i {
				i = end - 1
				continue
			}
		}
		switch c {
		case ':':
			if i+2 < len(s) && s[i+1] == '/' && s[i+2] == '/' {
				if end := sc.url(i); end > i {
					i = end - 1
				}
			} else if end := sc.telegram(i); end > i {
				i = end - 1
			} else {
				sc.pgpassWord(i)
				sc.assign(i)
			}
		case '=':
			sc.assign(i)
		case '-':
			if strings.HasPrefix(s[i:], "-----BEGIN ") {
				if end := sc.pem(i); end > i {
					i = end - 1
				}
			} else if i > 0 && isHSpace(s[i-1]) {
				sc.flag(i)
			}
		case '\n':
			sc.pgpass(i + 1)
			sc.tableRow(i + 1)
		}
	}
}

// finish merges overlapping detections, runs the high-entropy pass in the
// gaps, and returns the final disjoint spans sorted by start.
func (sc *scanner) finish() []span {
	merged := mergeSpans(sc.found)
	sc.found = merged
	n := len(merged)
	last := 0
	for k := 0; k <= n; k++ {
		end := len(sc.s)
		if k < n {
			end = merged[k].start
		}
		sc.entropyGap(last, end)
		if k < n {
			last = merged[k].end
		}
	}
	if len(sc.found) > n {
		sort.Slice(sc.found, func(i, j int) bool { return sc.found[i].start < sc.found[j].start })
	}
	return sc.found
}

func mergeSpans(sp []span) []span {
	if len(sp) < 2 {
		return sp
	}
	sort.SliceStable(sp, func(i, j int) bool { return sp[i].start < sp[j].start })
	out := sp[:1]
	for _, x := range sp[1:] {
		last := &out[len(out)-1]
		if x.start < last.end {
			if x.end > last.end {
				last.end = x.end
			}
			if x.prio > last.prio {
				last.kind, last.prio = x.kind, x.prio
			}
			continue
		}
		out = append(out, x)
	}
	return out
}

// ---------------------------------------------------------------------------
// Fixed-prefix tokens.

type prefixRule struct {
	prefix   string
	kind     string
	body     uint16 // classes allowed after the prefix
	min, max int    // body length bounds; max 0 means unbounded
	// check, when set, must accept the body; f is the union of the byte
	// classes of body.
	check   func(body string, f uint16) bool
	special int // specialJWT or specialBearer: replaces the generic body match
}

const (
	specialNone = iota
	specialJWT
	specialBearer
	specialNetrc
)

var (
	anchor      [256]bool
	prefixRules [256][]prefixRule
)

// Body checks of prefix rules, on the union f of the body's byte classes.

func hasMix(_ string, f uint16) bool {
	return f&fUpper != 0 && f&fLower != 0 && f&fDigit != 0
}

func hasUpperLower(_ string, f uint16) bool { return f&fUpper != 0 && f&fLower != 0 }

func hasDigit(_ string, f uint16) bool { return f&fDigit != 0 }

func isLowerHex(f uint16) bool { return f&(fUpper|fNotHex) == 0 }

func fillPrefixRules() {
	rules := []prefixRule{
		// AWS access key ids (long-term AKIA, temporary ASIA, and the rarer ABIA/ACCA).
		{prefix: "AKIA", kind: "aws-access-key", body: fUpAlnum, min: 16, max: 16},
		{prefix: "ASIA", kind: "aws-access-key", body: fUpAlnum, min: 16, max: 16},
		{prefix: "ABIA", kind: "aws-access-key", body: fUpAlnum, min: 16, max: 16},
		{prefix: "ACCA", kind: "aws-access-key", body: fUpAlnum, min: 16, max: 16},
		// Google.
		{prefix: "AIza", kind: "gcp-api-key", body: fB64URL, min: 35, max: 35},
		{prefix: "GOCSPX-", kind: "gcp-oauth-secret", body: fB64URL, min: 24, max: 40},
		{prefix: "ya29.", kind: "gcp-access-token", body: fB64URL | fDot, min: 30, check: hasUpperLower},
		// GitHub.
		{prefix: "github_pat_", kind: "github-token", body: fWord, min: 40},
		{prefix: "ghp_", kind: "github-token", body: fAlnum, min: 36, max: 255},
		{prefix: "gho_", kind: "github-token", body: fAlnum, min: 36, max: 255},
		{prefix: "ghu_", kind: "github-token", body: fAlnum, min: 36, max: 255},
		{prefix: "ghs_", kind: "github-token", body: fAlnum, min: 36, max: 255},
		{prefix: "ghr_", kind: "github-token", body: fAlnum, min: 36, max: 255},
		// GitLab (personal, pipeline trigger, runner, deploy tokens).
		{prefix: "glpat-", kind: "gitlab-token", body: fB64URL, min: 20},
		{prefix: "glptt-", kind: "gitlab-token", body: fB64URL, min: 20},
		{prefix: "glrt-", kind: "gitlab-token", body: fB64URL, min: 20},
		{prefix: "gldt-", kind: "gitlab-token", body: fB64URL, min: 20},
		// Model providers. Longest prefixes first: the first matching rule wins.
		{prefix: "sk-ant-", kind: "anthropic-key", body: fB64URL, min: 20},
		{prefix: "sk-or-", kind: "openrouter-key", body: fB64URL, min: 20},
		{prefix: "sk-proj-", kind: "openai-key", body: fB64URL, min: 20},
		{prefix: "sk-svcacct-", kind: "openai-key", body: fB64URL, min: 20},
		{prefix: "sk-admin-", kind: "openai-key", body: fB64URL, min: 20},
		{prefix: "sk-", kind: "openai-key", body: fB64URL, min: 20, check: func(b string, f uint16) bool {
			return hasMix(b, f) || len(b) >= 32 && isLowerHex(f)
		}},
		{prefix: "hf_", kind: "huggingface-token", body: fAlnum, min: 30, check: hasUpperLower},
		{prefix: "gsk_", kind: "groq-key", body: fAlnum, min: 40},
		{prefix: "r8_", kind: "replicate-token", body: fAlnum, min: 30},
		{prefix: "xai-", kind: "xai-key", body: fAlnum, min: 40},
		{prefix: "pplx-", kind: "perplexity-key", body: fAlnum, min: 40},
		// Slack.
		{prefix: "xoxb-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xoxp-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xoxa-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xoxr-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xoxs-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xoxe-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		{prefix: "xapp-", kind: "slack-token", body: fAlnum | fDash, min: 10},
		// Stripe.
		{prefix: "sk_live_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "sk_test_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "rk_live_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "rk_test_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "pk_live_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "pk_test_", kind: "stripe-key", body: fAlnum, min: 16},
		{prefix: "whsec_", kind: "stripe-key", body: fAlnum, min: 24},
		// Twilio API key SID.
		{prefix: "SK", kind: "twilio-key", body: fHex, min: 32, max: 32},
		// SendGrid: SG.<22>.<43>.
		{prefix: "SG.", kind: "sendgrid-key", body: fB64URL | fDot, min: 33, check: func(b string, _ uint16) bool {
			k := strings.IndexByte(b, '.')
			return k >= 16 && len(b)-k-1 >= 16 && strings.IndexByte(b[k+1:], '.') < 0
		}},
		// Package registries.
		{prefix: "npm_", kind: "npm-token", body: fAlnum, min: 36, max: 36},
		{prefix: "pypi-AgEI", kind: "pypi-token", body: fB64URL, min: 50},
		// Other services.
		{prefix: "shpat_", kind: "shopify-token", body: fHex, min: 32, max: 32},
		{prefix: "shpss_", kind: "shopify-token", body: fHex, min: 32, max: 32},
		{prefix: "shpca_", kind: "shopify-token", body: fHex, min: 32, max: 32},
		{prefix: "shppa_", kind: "shopify-token", body: fHex, min: 32, max: 32},
		{prefix: "dop_v1_", kind: "digitalocean-token", body: fHex, min: 64, max: 64},
		{prefix: "doo_v1_", kind: "digitalocean-token", body: fHex, min: 64, max: 64},
		{prefix: "dor_v1_", kind: "digitalocean-token", body: fHex, min: 64, max: 64},
		{prefix: "lin_api_", kind: "linear-key", body: fAlnum, min: 40},
		{prefix: "hvs.", kind: "vault-token", body: fB64URL, min: 24},
		{prefix: "hvb.", kind: "vault-token", body: fB64URL, min: 24},
		{prefix: "PMAK-", kind: "postman-key", body: fAlnum | fDash, min: 40},
		{prefix: "AGE-SECRET-KEY-1", kind: "age-secret-key", body: fUpAlnum, min: 50},
		// Databricks personal access tokens.
		{prefix: "dapi", kind: "databricks-token", body: fHex, min: 32, max: 32},
		// Mailgun API keys (the older "key-" form).
		{prefix: "key-", kind: "mailgun-key", body: fLower | fDigit, min: 32, max: 32, check: hasDigit},
		// Docker Hub, Supabase, LangSmith, Tavily, New Relic.
		{prefix: "dckr_pat_", kind: "docker-hub-token", body: fB64URL, min: 27},
		{prefix: "sbp_", kind: "supabase-token", body: fHex, min: 40, max: 40},
		{prefix: "lsv2_pt_", kind: "langsmith-key", body: fHex | fUnder, min: 32},
		{prefix: "lsv2_sk_", kind: "langsmith-key", body: fHex | fUnder, min: 32},
		{prefix: "tvly-", kind: "tavily-key", body: fB64URL, min: 32, check: hasMix},
		// cairn's own HTTP API access tokens (cairn token create).
		{prefix: "cairn_", kind: "cairn-token", body: fAlnum, min: 52, max: 52},
		{prefix: "NRAK-", kind: "newrelic-key", body: fUpAlnum, min: 27, max: 27},
		// Structural anchors.
		{prefix: "eyJ", special: specialJWT},
		{prefix: "password", special: specialNetrc},
		{prefix: "Be", special: specialBearer},
		{prefix: "be", special: specialBearer},
		{prefix: "BE", special: specialBearer},
	}
	for _, r := range rules {
		c := r.prefix[0]
		prefixRules[c] = append(prefixRules[c], r)
		anchor[c] = true
	}
	anchor[':'] = true
	anchor['='] = true
	anchor['-'] = true
	anchor['\n'] = true
}

// prefix tries the fixed-prefix rules at i (a word start). It returns the end
// of what it consumed, or i when nothing matched.
func (sc *scanner) prefix(i int) int {
	s := sc.s[i:]
	for k := range prefixRules[s[0]] {
		r := &prefixRules[s[0]][k]
		// Every prefix has at least two bytes; testing the second one first
		// rejects most word starts without a call.
		if len(s) < len(r.prefix) || s[1] != r.prefix[1] || !strings.HasPrefix(s, r.prefix) {
			continue
		}
		if r.special != specialNone {
			end := i
			switch r.special {
			case specialJWT:
				end = sc.jwt(i)
			case specialBearer:
				end = sc.bearer(i)
			case specialNetrc:
				end = sc.netrc(i)
			}
			if end > i {
				return end
			}
			continue
		}
		b := len(r.prefix)
		e, f := sc.runEnd(i+b, r.body)
		e -= i
		n := e - b
		if n < r.min || r.max > 0 && n > r.max {
			continue
		}
		if e < len(s) && isAlnum(s[e]) {
			continue
		}
		if r.check != nil && !r.check(s[b:e], f) {
			continue
		}
		sc.add(i, i+e, r.kind, prioSpecific)
		return i + e
	}
	return i
}

// jwt matches header.payload.signature (up to five segments for JWE), each
// base64url, the header starting with eyJ.
func (sc *scanner) jwt(i int) int {
	s := sc.s
	p := i
	seg := func() int {
		st := p
		p, _ = sc.runEnd(p, fB64URL)
		return p - st
	}
	if seg() < 10 || p >= len(s) || s[p] != '.' {
		return i
	}
	p++
	if seg() < 10 || p >= len(s) || s[p] != '.' {
		return i
	}
	p++
	seg()
	for n := 3; n < 5 && p+1 < len(s) && s[p] == '.' && is(s[p+1], fB64URL); n++ {
		p++
		seg()
	}
	sc.add(i, p, "jwt", prioSpecific)
	return p
}

// bearer matches "Bearer <token>" outside an Authorization header. It
// returns the token start so that more specific rules (jwt, ...) still see
// the token.
func (sc *scanner) bearer(i int) int {
	s := sc.s
	if !hasPrefixFold(s[i:], "bearer") {
		return i
	}
	p := i + 6
	if p >= len(s) || !isHSpace(s[p]) {
		return i
	}
	for p < len(s) && isHSpace(s[p]) {
		p++
	}
	st := p
	p, f := sc.runEnd(p, fB64URL|fDot|fPlus|fSlash|fEq|fTilde)
	tok := s[st:p]
	if len(tok) < 16 || f&fDigit == 0 || f&(fUpper|fLower) == 0 || isPlaceholder(tok) {
		return i
	}
	sc.add(st, p, "bearer-token", prioHeader)
	return st
}

// pem handles "-----BEGIN <label>-----". Private-key blocks are redacted up
// to and including their END line (or to the end of text when there is none);
// other blocks (certificates, public keys) are exempted from the high-entropy
// check.
func (sc *scanner) pem(i int) int {
	s := sc.s
	h := i + len("-----BEGIN ")
	lim := min(len(s), h+64)
	e := strings.Index(s[h:lim], "-----")
	if e < 0 {
		return i
	}
	label := s[h : h+e]
	if strings.IndexByte(label, '\n') >= 0 {
		return i
	}
	private := strings.Contains(label, "PRIVATE KEY")
	headerEnd := h + e + 5
	blockEnd := len(s)
	if sc.endAt == 0 || headerEnd < sc.endFrom || sc.endAt >= 0 && sc.endAt < headerEnd {
		sc.endFrom, sc.endAt = headerEnd, -1
		if k := strings.Index(s[headerEnd:], "-----END "); k >= 0 {
			sc.endAt = headerEnd + k
		}
	}
	if sc.endAt >= 0 {
		p := sc.endAt + len("-----END ")
		lim := min(len(s), p+64)
		if q := strings.Index(s[p:lim], "-----"); q >= 0 {
			blockEnd = p + q + 5
		} else {
			blockEnd = p
		}
	} else if !private {
		return headerEnd
	}
	if private {
		sc.add(i, blockEnd, "private-key", prioSpecific)
	} else {
		sc.zones = append(sc.zones, [2]int{i, blockEnd})
	}
	return blockEnd
}

// ---------------------------------------------------------------------------
// URLs.

func isSchemeChar(c byte) bool { return is(c, fAlnum) || c == '+' || c == '.' || c == '-' }

// urlStop reports whether c ends a URL in running text.
func urlStop(c byte) bool {
	return isSpace(c) || c == '"' || c == '\'' || c == '`' || c == '<' || c == '>'
}

// url handles "scheme://": credentials in the authority and webhook URLs.
// i is the offset of ':'. It returns the end of a redacted webhook path, or i.
func (sc *scanner) url(i int) int {
	s := sc.s
	k := i
	for k > 0 && i-k < 32 && isSchemeChar(s[k-1]) {
		k--
	}
	for k < i && !is(s[k], fUpper|fLower) {
		k++
	}
	if i-k < 2 {
		return i
	}
	a := i + 3
	e := a
	for e < len(s) && !urlStop(s[e]) && s[e] != '/' && s[e] != '?' && s[e] != '#' && s[e] != '\\' {
		e++
	}
	host := s[a:e]
	if at := strings.LastIndexByte(host, '@'); at >= 0 {
		ui := host[:at]
		host = host[at+1:]
		if c := strings.IndexByte(ui, ':'); c >= 0 && !strings.HasPrefix(ui, markerPrefix) {
			if pw := ui[c+1:]; pw != "" && !isPlaceholder(pw) {
				sc.add(a, a+at, "url-credentials", prioSpecific)
			}
		}
	}
	var kind, path string
	switch {
	case strings.EqualFold(host, "hooks.slack.com"):
		kind = "slack-webhook"
		for _, p := range []string{"/services/", "/workflows/", "/triggers/"} {
			if strings.HasPrefix(s[e:], p) {
				path = p
			}
		}
	case strings.EqualFold(host, "discord.com"), strings.EqualFold(host, "discordapp.com"),
		strings.EqualFold(host, "ptb.discord.com"), strings.EqualFold(host, "canary.discord.com"):
		kind = "discord-webhook"
		if strings.HasPrefix(s[e:], "/api/webhooks/") {
			path = "/api/webhooks/"
		}
	}
	if path != "" {
		st := e + len(path)
		p := st
		for p < len(s) && !urlStop(s[p]) && s[p] != '?' && s[p] != '#' && s[p] != ')' && s[p] != ']' {
			p++
		}
		if p-st >= 8 && !strings.HasPrefix(s[st:], markerPrefix) {
			sc.add(st, p, kind, prioSpecific)
			return p
		}
	}
	return i
}

// inURL reports whether offset a lies inside a URL ("scheme://…" without a
// break before a).
func (sc *scanner) inURL(a int) bool {
	s := sc.s
	lo := max(0, a-2048)
	for p := a - 1; p >= lo+2; p-- {
		c := s[p]
		if urlStop(c) {
			return false
		}
		if c == '/' && s[p-1] == '/' && s[p-2] == ':' {
			return true
		}
	}
	return false
}
