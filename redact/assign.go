package redact

import (
	"strings"
	"sync"
)

// Assignment kinds, chosen from the key name.
const (
	kindPassword = "password-assignment"
	kindSecret   = "secret-assignment"
	kindAWS      = "aws-secret-key"
	kindAzure    = "azure-storage-key"
	kindPrivKey  = "private-key"
	kindAuth     = "auth-header"
)

// keySuffixes maps normalised key suffixes (lower case, without '_', '-' and
// '.') to a kind. The first match wins, so longer suffixes come first.
var keySuffixes = []struct{ suffix, kind string }{
	{"secretaccesskey", kindAWS},
	{"awssecretkey", kindAWS},
	{"sharedaccesskey", kindAzure},
	{"accountkey", kindAzure},
	{"privatekey", kindPrivKey},
	{"authorization", kindAuth},
	{"passphrase", kindPassword},
	{"passcode", kindPassword},
	{"password", kindPassword},
	{"passwd", kindPassword},
	{"pwd", kindPassword},
	{"secretkey", kindSecret},
	{"accesskey", kindSecret},
	{"signingkey", kindSecret},
	{"encryptionkey", kindSecret},
	{"masterkey", kindSecret},
	{"clientkey", kindSecret},
	{"authkey", kindSecret},
	{"apikey", kindSecret},
	{"secret", kindSecret},
	{"token", kindSecret},
	{"signature", kindSecret},
}

// suffixesByLast indexes keySuffixes by their last byte.
var suffixesByLast [256][]struct{ suffix, kind string }

func fillSuffixes() {
	for _, ks := range keySuffixes {
		c := ks.suffix[len(ks.suffix)-1]
		suffixesByLast[c] = append(suffixesByLast[c], ks)
	}
}

// classifyKey returns the kind of secret a key name announces, or "".
func classifyKey(key string) string {
	if len(key) == 0 {
		return ""
	}
	switch key[len(key)-1] | 0x20 {
	case 'd', 's', 'e', 't', 'n', 'y', 'g', 'h':
	default:
		return ""
	}
	var norm [64]byte
	var pos [64]int
	m := 0
	for k := 0; k < len(key) && m < len(norm); k++ {
		c := key[k]
		switch {
		case c == '_' || c == '-' || c == '.':
			continue
		case 'A' <= c && c <= 'Z':
			c += 'a' - 'A'
		}
		norm[m], pos[m] = c, k
		m++
	}
	n := norm[:m]
	if m == 0 {
		return ""
	}
	for _, ks := range suffixesByLast[n[m-1]] {
		if endsWith(n, ks.suffix) {
			return ks.kind
		}
	}
	switch string(n) {
	case "sig", "auth":
		return kindSecret
	}
	// "pass" only as a separate word after another one: DB_PASS, smtpPass,
	// but not bypass, compass, or a bare "pass" (test summaries).
	if endsWith(n, "pass") && m > 4 {
		k := pos[m-4]
		if k > 0 && (key[k-1] == '_' || key[k-1] == '-' || key[k-1] == '.' || key[k] == 'P' && is(key[k-1], fLower)) {
			return kindPassword
		}
	}
	return ""
}

func endsWith(b []byte, suf string) bool {
	if len(b) < len(suf) {
		return false
	}
	return string(b[len(b)-len(suf):]) == suf
}

// valueStop reports whether c ends a bare (unquoted) value.
func valueStop(c byte) bool {
	switch c {
	case '"', '\'', '`', ',', ';', '&', ')', ']', '}', '<', '>':
		return true
	}
	return isSpace(c)
}

func isQuote(c byte) bool { return c == '"' || c == '\'' || c == '`' }

// assign handles a possible key/value separator at i: '=', ':', ":=", "=>".
func (sc *scanner) assign(i int) {
	s := sc.s
	if i < sc.horizon {
		return // inside a value already examined
	}
	sepEnd := i + 1
	colon := false
	if s[i] == ':' {
		if i+1 < len(s) && s[i+1] == ':' || i > 0 && s[i-1] == ':' {
			return // C++/Rust path separator
		}
		if i+1 < len(s) && s[i+1] == '=' {
			sepEnd = i + 2
		} else {
			colon = true
		}
	} else {
		if i+1 < len(s) && (s[i+1] == '=' || s[i+1] == '~') {
			return // comparison
		}
		if i > 0 && strings.IndexByte("=!<>+-*/%&|^:~?", s[i-1]) >= 0 {
			return // comparison, compound assignment, or ":=" seen at ':'
		}
		if i+1 < len(s) && s[i+1] == '>' {
			sepEnd = i + 2
		}
	}

	// The key: identifier characters right before the separator, optionally
	// quoted, optionally followed by blanks.
	j := i - 1
	for j >= 0 && i-j <= 4 && isHSpace(s[j]) {
		j--
	}
	if j < 0 {
		return
	}
	spaceBefore := j < i-1
	// Markdown emphasis around the key: "**Password**: value".
	for e := 0; e < 2 && j > 0 && s[j] == '*'; e++ {
		j--
	}
	quotedKey := false
	kEnd := j + 1
	if isQuote(s[j]) {
		quotedKey = true
		kEnd = j
		j--
	}
	k := j
	for k >= 0 && kEnd-k <= 64 && is(s[k], fKey) {
		k--
	}
	kStart := k + 1
	if quotedKey && (k < 0 || s[k] != s[kEnd]) {
		return
	}
	if kStart >= kEnd {
		return
	}
	key := s[kStart:kEnd]
	kind := classifyKey(key)
	if kind == "" {
		return
	}
	if colon && kStart > 0 && (s[kStart-1] == '/' || s[kStart-1] == '@') {
		return // part of a URL
	}

	// The value.
	v := sepEnd
	if colon && strings.HasPrefix(s[v:], "**") {
		v += 2 // the emphasis closes after the colon: "**Password:** value"
	}
	for v < len(s) && isHSpace(s[v]) {
		v++
	}
	spaceAfter := v > sepEnd
	if v >= len(s) || s[v] == '\n' || s[v] == '\r' {
		return
	}
	if kind == kindAuth {
		sc.horizon = sc.authValue(v)
		return
	}
	if isQuote(s[v]) {
		vs, ve := quotedValue(s, v)
		sc.horizon = ve
		val := s[vs:ve]
		if isPlaceholder(val) || kind == kindPassword && isPathLike(key, val) {
			return
		}
		sc.add(vs, ve, kind, prioAssign)
		return
	}

	// Bare value.
	// '&' separates query parameters; elsewhere it may be part of a password.
	query := kStart > 0 && (s[kStart-1] == '?' || s[kStart-1] == '&')
	ve := v
	if connectionString(s, kStart) && !colon {
		// Key=value; pairs: the value runs to the ';', blanks included.
		for ve < len(s) && s[ve] != ';' && s[ve] != '\n' && s[ve] != '\r' && !isQuote(s[ve]) {
			ve++
		}
		for ve > v && isHSpace(s[ve-1]) {
			ve--
		}
	}
	for ve < len(s) && !valueStop(s[ve]) || ve < len(s) && s[ve] == '&' && !query && !paramFollows(s[ve+1:]) {
		ve++
	}
	sc.horizon = ve
	val := s[v:ve]
	if isPlaceholder(val) || isKeyword(val) || isCodeRef(val, s[ve:]) || sameName(key, val) ||
		isShortNumber(val) || kind == kindPassword && isPathLike(key, val) {
		return
	}
	switch {
	case colon && !quotedKey && atLineStart(s, kStart):
		// YAML / header style: the value is the rest of the line.
		le := v
		for le < len(s) && s[le] != '\n' && s[le] != '\r' {
			le++
		}
		line := s[v:le]
		if c := strings.Index(line, " #"); c >= 0 {
			line = line[:c]
		}
		line = strings.TrimRight(line, " \t")
		if strings.ContainsAny(line[:1], "|>*&!{[") {
			return
		}
		if strings.HasSuffix(line, ",") && isIdentPath(val) {
			return // a field in a code literal: Token: tok,
		}
		if len(line) > len(val) {
			ve = v + len(line)
			sc.horizon = ve
		}
	case !colon && !spaceBefore && !spaceAfter && sepEnd == i+1:
		// env / flag / query style: KEY=value, --key=value, ?key=value.
	default:
		// Code or prose: only values that look like credentials.
		if !credentialLooking(val) {
			return
		}
	}
	sc.add(v, ve, kind, prioAssign)
}

// connectionString reports whether the key at k follows a ';', as in the
// Key=value;Key=value pairs of a database connection string.
func connectionString(s string, k int) bool {
	for k > 0 && s[k-1] == ' ' {
		k--
	}
	return k > 0 && s[k-1] == ';'
}

// paramFollows reports whether s starts with "name=", as after the '&' of a
// query string.
func paramFollows(s string) bool {
	k := 0
	for k < len(s) && k < 64 && is(s[k], fWord|fDash|fDot) {
		k++
	}
	return k > 0 && k < len(s) && s[k] == '='
}

// quotedValue returns the bounds of the content of the string literal that
// starts with the quote at v: up to the matching quote (backslash escapes
// honoured) or, when unclosed, to the end of the line.
func quotedValue(s string, v int) (int, int) {
	q := s[v]
	p := v + 1
	for p < len(s) {
		c := s[p]
		if c == q {
			return v + 1, p
		}
		if c == '\n' || c == '\r' {
			break
		}
		if c == '\\' && q != '`' && p+1 < len(s) && s[p+1] != '\n' {
			p += 2
			continue
		}
		p++
	}
	return v + 1, min(p, len(s))
}

// authValue redacts the credentials of an Authorization header value that
// starts at v: "Bearer x", "Basic x", "token x", or a bare credential. It
// returns the end of what it examined.
func (sc *scanner) authValue(v int) int {
	s := sc.s
	end := len(s)
	if isQuote(s[v]) {
		_, end = quotedValue(s, v)
		v++
	}
	p := v
	for p < end && is(s[p], fAlnum|fDash) {
		p++
	}
	scheme := s[v:p]
	if p < end && isHSpace(s[p]) {
		switch {
		case equalFoldAny(scheme, "bearer", "basic", "token", "bot", "apikey", "key", "sso-key", "negotiate", "ntlm"):
			for p < end && isHSpace(s[p]) {
				p++
			}
			v = p
		case equalFoldAny(scheme, "digest", "aws4-hmac-sha256", "hawk", "oauth"):
			// Parameter lists: redact the rest of the value on this line.
			for p < end && isHSpace(s[p]) {
				p++
			}
			e := p
			for e < end && s[e] != '\n' && s[e] != '\r' {
				e++
			}
			if e-p >= 8 {
				sc.add(p, e, kindAuth, prioHeader)
			}
			return e
		}
	}
	e := v
	for e < end && !isSpace(s[e]) && !isQuote(s[e]) && s[e] != ',' && s[e] != ';' {
		e++
	}
	cred := s[v:e]
	if isPlaceholder(cred) || isKeyword(cred) || isCodeRef(cred, s[e:]) {
		return e
	}
	sc.add(v, e, kindAuth, prioHeader)
	return e
}

func equalFoldAny(s string, words ...string) bool {
	for _, w := range words {
		if strings.EqualFold(s, w) {
			return true
		}
	}
	return false
}

// atLineStart reports whether only blanks, optionally around a YAML list
// dash ("- "), precede offset k on its line.
func atLineStart(s string, k int) bool {
	p := k
	for p > 0 && isHSpace(s[p-1]) {
		p--
	}
	if p >= 2 && s[p-1] == ' ' && s[p-2] == '-' {
		p -= 2
		for p > 0 && isHSpace(s[p-1]) {
			p--
		}
	}
	return p == 0 || s[p-1] == '\n' || s[p-1] == '\r'
}

// placeholderWords are values that stand for a secret rather than being one
// (made on first use, not by every process as it starts).
var placeholderWords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"changeme": true, "change_me": true, "change-me": true, "changeit": true,
		"placeholder": true, "redacted": true, "example": true, "dummy": true,
		"fake": true, "todo": true, "tbd": true, "replaceme": true,
		"replace_me": true, "replace-me": true, "none": true, "null": true,
		"nil": true, "undefined": true, "true": true, "false": true,
	}
})

// isPlaceholder reports whether a value is obviously not a real secret:
// empty or one byte, already redacted, a variable or template reference
// ($VAR, ${VAR}, $(cmd), %VAR%, {{ .Var }}, #{var}, <token>), a mask made of
// x, X, *, ., -, _ only (xxx, ***, xxxx-xxxx), a value containing an ellipsis
// ("sk-...abcd", "ab***yz": a display hint, not the secret), a "your..."
// instruction (YOUR_API_KEY, your-token-here), "..._here", or one of a few
// words (changeme, placeholder, example, dummy, fake, todo, tbd, replace_me,
// redacted, none, null, nil, undefined, true, false).
func isPlaceholder(v string) bool {
	if len(v) <= 1 {
		return true
	}
	switch v[0] {
	case '$', '<':
		return true
	case '%':
		return isPercentVar(v)
	case '{':
		return strings.HasPrefix(v, "{{")
	case '#':
		return strings.HasPrefix(v, "#{")
	case '[':
		return strings.HasPrefix(v, markerPrefix)
	}
	mask := true
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case 'x', 'X', '*', '.', '-', '_':
		default:
			mask = false
		}
	}
	if mask {
		return true
	}
	if strings.Contains(v, "...") || strings.Contains(v, "***") || strings.Contains(v, "…") {
		return true
	}
	if hasPrefixFold(v, "your") || hasPrefixFold(v, "replace") || hasSuffixFold(v, "_here") || hasSuffixFold(v, "-here") {
		return true
	}
	if len(v) > 16 {
		return false
	}
	var buf [16]byte
	return placeholderWords()[string(lowerInto(buf[:0], v))]
}

// isPercentVar reports whether v starts with a Windows variable reference,
// %NAME%; percent-encoded bytes (%2B%3D) are not one.
func isPercentVar(v string) bool {
	k := strings.IndexByte(v[1:], '%') + 1
	if k < 2 || !is(v[1], fUpper|fLower|fUnder) {
		return false
	}
	for i := 1; i < k; i++ {
		if !is(v[i], fWord) {
			return false
		}
	}
	return true
}

func hasSuffixFold(s, suffix string) bool {
	return len(s) >= len(suffix) && hasPrefixFold(s[len(s)-len(suffix):], suffix)
}

// lowerInto appends v lower-cased (ASCII only) to buf.
func lowerInto(buf []byte, v string) []byte {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf = append(buf, c)
	}
	return buf
}

// keywords are bare values that are type names, literals or prose, not
// secrets: "password: string", "token: None", "Password: The password…"
// (made on first use).
var keywords = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"string": true, "str": true, "bool": true, "boolean": true, "int": true,
		"integer": true, "number": true, "any": true, "object": true, "bytes": true,
		"required": true, "optional": true, "hidden": true, "empty": true,
		"the": true, "a": true, "an": true, "it": true, "is": true, "are": true,
		"was": true, "be": true, "this": true, "that": true, "not": true,
		"must": true, "should": true, "will": true, "can": true, "may": true,
		"and": true, "or": true, "if": true, "to": true, "of": true, "for": true,
		"in": true, "on": true, "with": true, "see": true, "use": true,
		"from": true, "field": true, "value": true, "type": true,
		"flag": true, "option": true, "argument": true, "parameter": true, "prompt": true,
	}
})

func isKeyword(v string) bool {
	v = strings.TrimRight(v, ",;")
	if len(v) > 12 {
		return false
	}
	var buf [12]byte
	return keywords()[string(lowerInto(buf[:0], v))]
}

// isCodeRef reports whether a bare value is a code expression rather than a
// literal: a dotted identifier path (os.environ, cfg.DB.Password,
// process.env.TOKEN, req.headers?.token, env.SECRET!), or an identifier path
// followed by a call, index or generic bracket (getToken(), os.Getenv("X"),
// Option<String>).
// rest is the text right after the value.
func isCodeRef(v, rest string) bool {
	i, segs := identPathLen(v)
	if segs == 0 {
		return false
	}
	for i < len(v) && (v[i] == '!' || v[i] == '?') && segs >= 2 {
		i++ // TypeScript non-null assertion, optional chaining: env.X!, a.b?
	}
	if i == len(v) {
		if segs >= 2 {
			return true
		}
		return len(rest) > 0 && (rest[0] == '(' || rest[0] == '[' || rest[0] == '<')
	}
	switch v[i] {
	case '(', '[', '<':
		return true
	}
	return false
}

// identPathLen returns the length of the identifier path (a.b, a::b, a->b)
// at the start of v and its number of segments.
func identPathLen(v string) (int, int) {
	i, segs := 0, 0
	for {
		if i >= len(v) || !(is(v[i], fUpper|fLower|fUnder) || v[i] == '$') {
			if segs > 0 {
				// Back off a trailing separator that had no identifier after it.
				for i > 0 && strings.IndexByte(".:->?!", v[i-1]) >= 0 {
					i--
				}
			}
			return i, segs
		}
		for i < len(v) && (is(v[i], fWord) || v[i] == '$') {
			i++
		}
		segs++
		switch {
		case strings.HasPrefix(v[i:], "."):
			i++
		case strings.HasPrefix(v[i:], "::"), strings.HasPrefix(v[i:], "->"), strings.HasPrefix(v[i:], "?."), strings.HasPrefix(v[i:], "!."):
			i += 2
		default:
			return i, segs
		}
	}
}

func isIdentPath(v string) bool {
	v = strings.TrimRight(v, ",;")
	i, segs := identPathLen(v)
	return segs > 0 && i == len(v)
}

// sameName reports whether a value repeats its key, ignoring case and
// separators (apiKey: apiKey, password=password, token: token).
func sameName(key, val string) bool {
	val = strings.TrimRight(val, ",;")
	i, j := 0, 0
	for {
		for i < len(key) && (key[i] == '_' || key[i] == '-' || key[i] == '.') {
			i++
		}
		for j < len(val) && (val[j] == '_' || val[j] == '-' || val[j] == '.') {
			j++
		}
		if i == len(key) || j == len(val) {
			return i == len(key) && j == len(val)
		}
		if key[i]|0x20 != val[j]|0x20 {
			return false
		}
		i++
		j++
	}
}

// isShortNumber: "token: 5", "max_token=100": counts, not PINs worth hiding.
func isShortNumber(v string) bool {
	if len(v) >= 6 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if !is(v[i], fDigit) {
			return false
		}
	}
	return true
}

// isPathLike: the shell's PWD/OLDPWD hold directories, not passwords.
func isPathLike(key, val string) bool {
	return len(val) > 0 && (val[0] == '/' || val[0] == '~') && hasSuffixFold(key, "pwd")
}

// credentialLooking is the bar a bare value must clear where the separator
// does not make an assignment of a literal likely (code "x = y", prose
// "token: y"): at least 6 bytes with a digit or a symbol other than '_'.
func credentialLooking(v string) bool {
	if len(v) < 6 {
		return false
	}
	for i := 0; i < len(v); i++ {
		if c := v[i]; is(c, fDigit) || !is(c, fWord) {
			return true
		}
	}
	return false
}
