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
	login          bool   // a "login" word follows the program, before the flags
	after          int    // words read since the program (a "login" counts among the first 3)
}

// sshPrograms are the commands sshpass runs: their own flags (ssh -p PORT)
// take no password.
var sshPrograms = map[string]bool{"ssh": true, "scp": true, "sftp": true, "rsync": true}

// passwordProgram reports whether a program takes a password by a flag:
// one of flagCommands, loginCommands, or curl (-u USER:PASSWORD).
func passwordProgram(w string) bool {
	if _, ok := flagCommands[w]; ok {
		return true
	}
	return loginCommands[w] || w == "curl"
}

// commandAt returns the shell command that offset p is in: its program and
// whether a "login" word follows it. Commands end at a line break, ';',
// '|', '&' or '('. The program is the last word before p that names a
// program taking a password (so "I ran mysql -pX" and "then sshpass -p X
// ssh …" in a sentence are found as at the start of a line), else the
// command's first word after sudo, env, exec, time and VAR=x. The text
// between the last offset asked about and p is read once, so asking at
// every flag of a line costs linear time.
func (sc *scanner) commandAt(p int) *command {
	s := sc.s
	c := &sc.cmd
	k := p
	for k > c.scanned && !isCommandBreak(s[k-1]) {
		k--
	}
	from := c.scanned
	if !c.valid || k > c.scanned || c.scanned > p {
		// A new command: from the break before p (up to 256 bytes back).
		for k > 0 && p-k < 256 && !isCommandBreak(s[k-1]) {
			k--
		}
		if k > 0 && !isCommandBreak(s[k-1]) {
			// The window cut a word: start at the next one.
			for k < p && !isSpace(s[k]) {
				k++
			}
		}
		*c = command{valid: true, start: k}
		var w string
		rest := s[k:p]
		for {
			w, rest = nextWord(rest)
			if !(w == "sudo" || w == "env" || w == "exec" || w == "time" || strings.IndexByte(w, '=') > 0) {
				break
			}
		}
		c.prog = baseName(strings.TrimLeft(w, "`'\"$("))
		from = k
	}
	// Every word between from and p: a password-taking program named
	// there becomes the command's program; "login" among the three words
	// after the program marks a login subcommand.
	rest := s[from:p]
	if from > c.start && from < len(s) && !isSpace(s[from-1]) {
		// from is inside a word that was read up to there: skip its rest.
		_, rest = splitWord(rest)
	}
	for rest != "" {
		var w string
		w, rest = nextWord(rest)
		if w == "" {
			break
		}
		if b := baseName(strings.TrimLeft(w, "`'\"$(")); passwordProgram(b) || sshPrograms[b] {
			c.prog, c.login, c.after = b, false, 0
			continue
		}
		if c.after < 3 {
			c.after++
			if w == "login" {
				c.login = true
			}
		}
	}
	c.scanned = p
	return c
}

// baseName is w after its last '/'.
func baseName(w string) string {
	if j := strings.LastIndexByte(w, '/'); j >= 0 {
		return w[j+1:]
	}
	return w
}

// splitWord splits s after its first run of non-blank bytes.
func splitWord(s string) (string, string) {
	j := 0
	for j < len(s) && !isSpace(s[j]) {
		j++
	}
	return s[:j], s[j:]
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
func (sc *scanner) pgpass(ls int) { sc.pgpassAt(ls, false) }

// pgpassWord handles a ':' at i inside a word that may be a .pgpass entry
// quoted in a sentence ("the line db:5432:app:admin:SECRET works"): the
// word, between blanks, quotes or backticks, is read as pgpass reads a
// line, and its host must hold a letter or a '.' (so that times such as
// 10:30:00:00:01 are not entries). Each word is read once.
func (sc *scanner) pgpassWord(i int) {
	s := sc.s
	ws := i
	for ws > 0 && i-ws < 256 && !isSpace(s[ws-1]) && !isQuote(s[ws-1]) {
		ws--
	}
	if ws == sc.pgWord || ws == 0 || s[ws-1] == '\n' || s[ws-1] == '\r' {
		return // read already, or at a line start, which pgpass reads
	}
	sc.pgWord = ws
	sc.pgpassAt(ws, true)
}

// pgpassAt reads a .pgpass entry that starts at ls: to the end of the line,
// or with word, to the end of the word (a blank, a quote or a backtick).
func (sc *scanner) pgpassAt(ls int, word bool) {
	s := sc.s
	var colons [4]int
	n := 0
	le := ls
	for ; le < len(s) && le-ls < 512 && s[le] != '\n' && s[le] != '\r'; le++ {
		c := s[le]
		if word && (isSpace(c) || isQuote(c)) {
			break
		}
		switch {
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
	if le > len(s) {
		le = len(s)
	}
	if word {
		// A sentence's punctuation is not part of the password.
		for le > ls && strings.IndexByte(".,;)", s[le-1]) >= 0 {
			le--
		}
	}
	if n != 4 || le-ls >= 512 || colons[0] == ls || le <= colons[3]+1 {
		return
	}
	if word && strings.IndexFunc(s[ls:colons[0]], func(r rune) bool {
		return r == '.' || r == '*' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z'
	}) < 0 {
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

// tableRow handles a line that starts at ls and may be a row of a
// Markdown table: the cell after a cell that names a password or a secret
// ("| Password | value |", "| **API token** | `value` |") holds one, when
// it is a single word that is not a placeholder, a type name or a number
// (so that "| password | string | required |" stays).
func (sc *scanner) tableRow(ls int) {
	s := sc.s
	p := ls
	for p < len(s) && isHSpace(s[p]) {
		p++
	}
	if p >= len(s) || s[p] != '|' {
		return
	}
	le := p
	for le < len(s) && le-ls < 1024 && s[le] != '\n' && s[le] != '\r' {
		le++
	}
	kind := ""
	for c := p + 1; c < le; {
		e := c
		for e < le && s[e] != '|' {
			e++
		}
		vs, ve := trimCell(s, c, e)
		if kind != "" && vs < ve && strings.IndexFunc(s[vs:ve], func(r rune) bool { return r == ' ' || r == '\t' }) < 0 {
			val := s[vs:ve]
			if !isPlaceholder(val) && !isKeyword(val) && !isShortNumber(val) && !isCodeRef(val, "") &&
				(kind == kindPassword || credentialLooking(val)) {
				sc.add(vs, ve, kind, prioAssign)
			}
		}
		kind = ""
		if ve-vs <= 40 {
			if k := classifyKey(s[vs:ve]); k == kindPassword || k == kindSecret {
				kind = k
			}
		}
		c = e + 1
	}
}

// trimCell returns the bounds of a table cell's text s[c:e] without its
// blanks, Markdown emphasis and backticks.
func trimCell(s string, c, e int) (int, int) {
	for {
		for c < e && isHSpace(s[c]) {
			c++
		}
		for e > c && isHSpace(s[e-1]) {
			e--
		}
		switch {
		case e-c >= 4 && s[c:c+2] == "**" && s[e-2:e] == "**":
			c, e = c+2, e-2
		case e-c >= 2 && s[c] == '`' && s[e-1] == '`':
			c, e = c+1, e-1
		default:
			return c, e
		}
	}
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
