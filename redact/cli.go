package redact

import "strings"

// Secrets in command lines and credential files: password flags, .netrc
// and .pgpass lines, Telegram bot tokens.

const (
	kindCLIPassword = "cli-password"
	kindNetrc       = "netrc-password"
	kindPgpass      = "pgpass-password"
	kindTelegram    = "telegram-bot-token"
)

// flagCommands are the programs whose short flags take a password: the
// flag, and whether its value is attached (mysql -pSECRET) or the next
// word (redis-cli -a SECRET). Login subcommands (docker login -p) are in
// loginCommands.
var flagCommands = map[string]struct {
	flag     string
	attached bool
}{
	"mysql": {"p", true}, "mysqldump": {"p", true}, "mysqladmin": {"p", true},
	"mysqlimport": {"p", true}, "mysqlcheck": {"p", true}, "mariadb": {"p", true},
	"mariadb-dump": {"p", true}, "mariadb-admin": {"p", true},
	"redis-cli": {"a", false}, "valkey-cli": {"a", false}, "keydb-cli": {"a", false},
	"sshpass": {"p", false},
}

// loginCommands take "-p PASSWORD" after a "login" word.
var loginCommands = map[string]bool{
	"docker": true, "podman": true, "nerdctl": true, "buildah": true, "skopeo": true,
	"helm": true, "oras": true, "crane": true, "regctl": true, "cf": true,
}

// command is the program of the shell command that a flag belongs to,
// cached per command (see scanner.commandAt).
type command struct {
	valid          bool
	start, scanned int    // the command starts at start; s[start:scanned] has no separator
	prog           string // its program's base name, after sudo, env and VAR=x
	login          bool   // a "login" word precedes the flags
}

// commandAt returns the shell command that offset p is in: its program and
// whether a "login" word precedes p. Commands end at a line break, ';',
// '|', '&' or '('. The text between the last offset asked about and p is
// read once, so asking at every flag of a line costs linear time.
func (sc *scanner) commandAt(p int) *command {
	s := sc.s
	c := &sc.cmd
	k := p
	for k > c.scanned && !isCommandBreak(s[k-1]) {
		k--
	}
	if !c.valid || k > c.scanned || c.scanned > p {
		// A new command: from the break before p (up to 256 bytes back).
		for k > 0 && p-k < 256 && !isCommandBreak(s[k-1]) {
			k--
		}
		*c = command{valid: true, start: k}
		w, rest := nextWord(s[k:p])
		for w == "sudo" || w == "env" || w == "exec" || w == "time" || strings.IndexByte(w, '=') > 0 {
			w, rest = nextWord(rest)
		}
		if j := strings.LastIndexByte(w, '/'); j >= 0 {
			w = w[j+1:]
		}
		c.prog = w
		for n := 0; n < 3 && rest != ""; n++ {
			var x string
			x, rest = nextWord(rest)
			if x == "login" {
				c.login = true
			}
		}
	}
	c.scanned = p
	return c
}

func isCommandBreak(c byte) bool {
	return c == '\n' || c == '\r' || c == ';' || c == '|' || c == '&' || c == '('
}

// nextWord splits off the first blank-separated word of s.
func nextWord(s string) (string, string) {
	i := 0
	for i < len(s) && isHSpace(s[i]) {
		i++
	}
	j := i
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[i:j], s[j:]
}

// flag handles a command-line flag at i (a '-' after a blank): the value
// of --password VALUE, --token VALUE … (--key=VALUE is an assignment), of
// mysql -pVALUE, redis-cli -a VALUE, sshpass -p VALUE, docker login -p
// VALUE, and the password of curl -u/--user USER:PASSWORD.
func (sc *scanner) flag(i int) {
	s := sc.s
	n := i + 1
	long := n < len(s) && s[n] == '-'
	if long {
		n++
	}
	e := n
	for e < len(s) && e-n < 40 && is(s[e], fAlnum|fDash|fUnder) {
		e++
	}
	name := s[n:e]
	if name == "" || e < len(s) && s[e] == '=' {
		return
	}
	if long {
		switch {
		case name == "user":
			sc.userPass(e)
		case classifyKey(name) != "" && classifyKey(name) != kindAuth:
			sc.flagValue(e, classifyKey(name) == kindPassword)
		}
		return
	}
	if name == "u" {
		if sc.commandAt(i).prog == "curl" {
			sc.userPass(e)
		}
		return
	}
	c := sc.commandAt(i)
	if fc, ok := flagCommands[c.prog]; ok && strings.HasPrefix(name, fc.flag) {
		if fc.attached && len(name) > len(fc.flag) {
			// -pSECRET: the rest of the word.
			v := n + len(fc.flag)
			ve := v
			for ve < len(s) && !isSpace(s[ve]) && !isQuote(s[ve]) {
				ve++
			}
			if !isPlaceholder(s[v:ve]) {
				sc.add(v, ve, kindCLIPassword, prioAssign)
			}
		} else if !fc.attached && name == fc.flag {
			sc.flagValue(e, true)
		}
		return
	}
	if name == "p" && c.login && loginCommands[c.prog] {
		sc.flagValue(e, true)
	}
}

// flagValue redacts the word after a flag that ends at e, when it is a
// value rather than another flag, a placeholder or prose. A password flag
// takes any such word; other flags only words that look like credentials.
func (sc *scanner) flagValue(e int, password bool) {
	s := sc.s
	v := e
	for v < len(s) && isHSpace(s[v]) {
		v++
	}
	if v == e || v >= len(s) || s[v] == '-' || s[v] == '\n' || s[v] == '\r' {
		return
	}
	vs, ve := v, v
	if isQuote(s[v]) {
		vs, ve = quotedValue(s, v)
	} else {
		for ve < len(s) && !isSpace(s[ve]) && s[ve] != ';' && s[ve] != '|' && s[ve] != '&' && s[ve] != ')' {
			ve++
		}
	}
	val := s[vs:ve]
	if isPlaceholder(val) || isKeyword(val) || isCodeRef(val, s[ve:]) || !password && !credentialLooking(val) {
		return
	}
	sc.add(vs, ve, kindCLIPassword, prioAssign)
}

// userPass redacts PASSWORD in the USER:PASSWORD word after a flag that
// ends at e (curl -u, --user).
func (sc *scanner) userPass(e int) {
	s := sc.s
	v := e
	for v < len(s) && isHSpace(s[v]) {
		v++
	}
	if v == e || v >= len(s) {
		return
	}
	vs, ve := v, v
	if isQuote(s[v]) {
		vs, ve = quotedValue(s, v)
	} else {
		for ve < len(s) && !isSpace(s[ve]) {
			ve++
		}
	}
	c := strings.IndexByte(s[vs:ve], ':')
	if c < 0 || isPlaceholder(s[vs+c+1:ve]) {
		return
	}
	sc.add(vs+c+1, ve, kindCLIPassword, prioAssign)
}

// netrc handles the word "password" at i: in a .netrc line
// ("machine host login user password SECRET", on one line or several),
// the word after it is the password. It returns the end of the password,
// or i.
func (sc *scanner) netrc(i int) int {
	s := sc.s
	e := i + len("password")
	if e >= len(s) || !isHSpace(s[e]) || i > 0 && !isSpace(s[i-1]) {
		return i
	}
	// Before: "login" WORD, blanks or a line break between.
	p := i
	for p > 0 && i-p < 8 && isSpace(s[p-1]) {
		p--
	}
	wEnd := p
	for p > 0 && wEnd-p < 128 && !isSpace(s[p-1]) {
		p--
	}
	if p == wEnd {
		return i
	}
	q := p
	for q > 0 && p-q < 8 && isSpace(s[q-1]) {
		q--
	}
	if q < 5 || s[q-5:q] != "login" || q > 5 && !isSpace(s[q-6]) {
		return i
	}
	v := e
	for v < len(s) && isHSpace(s[v]) {
		v++
	}
	ve := v
	for ve < len(s) && !isSpace(s[ve]) {
		ve++
	}
	if ve == v || isPlaceholder(s[v:ve]) {
		return i
	}
	sc.add(v, ve, kindNetrc, prioAssign)
	return ve
}

// pgpass handles a line that starts at ls and may be a .pgpass entry,
// HOST:PORT:DATABASE:USER:PASSWORD, the port a number or '*', no blanks.
// Lines longer than 512 bytes are not entries.
func (sc *scanner) pgpass(ls int) {
	s := sc.s
	var colons [4]int
	n := 0
	le := ls
	for ; le < len(s) && le-ls < 512 && s[le] != '\n' && s[le] != '\r'; le++ {
		switch c := s[le]; {
		case c == '\\':
			le++ // an escaped ':' or '\'
		case c == ':':
			if n == 4 {
				return
			}
			colons[n] = le
			n++
		case isSpace(c), c == '[' && strings.HasPrefix(s[le:], markerPrefix):
			return // a marker's ':' is not a field separator
		}
	}
	if n != 4 || le-ls >= 512 || colons[0] == ls || le == colons[3]+1 {
		return
	}
	port := s[colons[0]+1 : colons[1]]
	if port != "*" && (len(port) == 0 || len(port) > 5 || !allDigits(port)) {
		return
	}
	if colons[2] == colons[1]+1 || colons[3] == colons[2]+1 || isPlaceholder(s[colons[3]+1:le]) {
		return
	}
	sc.add(colons[3]+1, le, kindPgpass, prioAssign)
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !is(s[i], fDigit) {
			return false
		}
	}
	return true
}

// telegram handles a ':' at i that may be inside a Telegram bot token:
// a bot id of 6–12 digits (at a word start, or after "bot" as in
// https://api.telegram.org/bot<token>/), ':', and 35 of [A-Za-z0-9_-].
// It returns the end of the token, or i.
func (sc *scanner) telegram(i int) int {
	s := sc.s
	d := i
	for d > 0 && i-d <= 12 && is(s[d-1], fDigit) {
		d--
	}
	if i-d < 6 || i-d > 12 {
		return i
	}
	if d > 0 && isAlnum(s[d-1]) && !(d >= 3 && hasSuffixFold(s[:d], "bot") && (d == 3 || !isAlnum(s[d-4]))) {
		return i
	}
	e, f := sc.runEnd(i+1, fB64URL)
	if e-i-1 != 35 || f&fUpper == 0 || f&fLower == 0 {
		return i
	}
	sc.add(d, e, kindTelegram, prioSpecific)
	return e
}
