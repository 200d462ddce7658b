package failure

import (
	"path"
	"regexp"
	"strings"
	"sync"
)

// Segments splits a shell command line into its simple commands (at &&,
// ||, ;, |, newlines and subshell parentheses), with quoted text and
// here-documents blanked ("" stands for a quoted word), and without the
// wrappers that only change how a program runs: environment assignments,
// sudo, env, time, timeout N, nice, nohup, exec, npx, bunx, pnpm exec,
// uv run, poetry run, pipenv run, bundle exec, nix develop -c, sshpass -p
// X. Empty segments are left out.
func Segments(cmd string) []string {
	c := blankHeredocs(cmd)
	c = singleRE().ReplaceAllString(c, `""`)
	c = doubleRE().ReplaceAllString(c, `""`)
	var out []string
	for _, seg := range splitRE().Split(c, -1) {
		seg = strings.TrimSpace(seg)
		for {
			loc := wrapperRE().FindStringIndex(seg)
			if loc == nil {
				break
			}
			seg = strings.TrimSpace(seg[loc[1]:])
		}
		if seg != "" {
			out = append(out, seg)
		}
	}
	return out
}

// blankHeredocs removes the bodies of here-documents (<<EOF … EOF): they
// are data, not commands.
func blankHeredocs(cmd string) string {
	for {
		m := heredocRE().FindStringSubmatchIndex(cmd)
		if m == nil {
			return cmd
		}
		delim := cmd[m[2]:m[3]]
		nl := strings.IndexByte(cmd[m[1]:], '\n')
		if nl < 0 {
			return cmd[:m[0]] + cmd[m[1]:]
		}
		bodyStart := m[1] + nl + 1
		end := len(cmd)
		for i := bodyStart; i < len(cmd); {
			j := strings.IndexByte(cmd[i:], '\n')
			line := cmd[i:]
			if j >= 0 {
				line = cmd[i : i+j]
			}
			if strings.TrimSpace(line) == delim {
				end = i + len(line)
				break
			}
			if j < 0 {
				break
			}
			i += j + 1
		}
		cmd = cmd[:m[0]] + cmd[m[1]:bodyStart] + cmd[end:]
	}
}

var (
	heredocRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`<<-?\s*['"]?(\w+)['"]?`) })
	singleRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`'[^']*'`) })
	doubleRE  = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`"(?:[^"\\]|\\.)*"`) })
	splitRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`&&|\|\||;|\||\n|\$\(|` + "`" + `|\(|\)`) })
	wrapperRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:sudo(?:\s+-\S+)*|env|time|nohup|exec|nice(?:\s+-n\s*-?\d+)?|timeout(?:\s+-\S+)*\s+\S+|npx(?:\s+-y)?|bunx|pnpm\s+exec|uv\s+run|poetry\s+run|pipenv\s+run|bundle\s+exec|nix\s+develop(?:\s+[^-\s]\S*)?\s+(?:-c|--command)|sshpass\s+-[pf]\s*\S+|[A-Za-z_]\w*=(?:""|\S*))\s+`)
	})
	// skipRE are segments that only move around or shape output: not
	// the command that ran.
	skipRE = sync.OnceValue(func() *regexp.Regexp {
		return regexp.MustCompile(`^(?:cd|pushd|popd|export|source|\.|set|unset|echo|printf|sleep|clear|true|false|ls|cat|head|tail|grep|egrep|rg|wc|sort|uniq|tee|less|more|cut|tr|awk|sed\s+-n|xargs|read|wait|jq)\b`)
	})
	redirectRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\d?>&\d|\s*&?\d?>>?\s*\S+|\s+&\s*$`) })
)

// Core is the command line without what only shapes its output or moves
// between folders: its segments that are not cd, echo, grep, head, tail,
// … (see Segments), redirections dropped, joined by " ; ". Two runs with
// the same core ran the same thing: "cd x && FOO=1 cargo build 2>&1 |
// tail -5" and "cargo build" both have the core "cargo build".
func Core(cmd string) string {
	var out []string
	for _, seg := range Segments(cmd) {
		if skipRE().MatchString(seg) {
			continue
		}
		seg = strings.Join(strings.Fields(redirectRE().ReplaceAllString(seg, "")), " ")
		if seg != "" {
			out = append(out, seg)
		}
	}
	return strings.Join(out, " ; ")
}

// subcommandRE is a word that names a sub-command: "test" in "go test".
var subcommandRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[a-z][a-z0-9_:-]*$`) })

// CommandKey names the program a command line runs and its sub-command:
// the first segment of Core, its program's base name (python3.12 and
// python3 as python) and its first word when that is a plain word ("go
// test ./..." is "go test", "./scripts/deploy.sh prod" is "deploy.sh
// prod", "python -m pytest -q" is "python -m pytest"). Runs of the same
// tool with other arguments have the same key; "" when the line runs
// nothing (only cd, echo, …).
func CommandKey(cmd string) string {
	core := Core(cmd)
	if core == "" {
		return ""
	}
	first, _, _ := strings.Cut(core, " ; ")
	f := strings.Fields(first)
	if len(f) == 0 {
		return ""
	}
	prog := strings.ToLower(path.Base(strings.ReplaceAll(f[0], `\`, "/")))
	if m := versionedRE().FindStringSubmatch(prog); m != nil {
		prog = m[1]
	}
	key := []string{prog}
	for i := 1; i < len(f); i++ {
		w := f[i]
		if w == "-m" && i+1 < len(f) && (prog == "python" || prog == "py") {
			key = append(key, "-m", f[i+1])
			break
		}
		if strings.HasPrefix(w, "-") {
			continue // a flag before the sub-command: go -C dir test (its value is skipped as a path below)
		}
		if subcommandRE().MatchString(w) {
			key = append(key, w)
		}
		break
	}
	return strings.Join(key, " ")
}

var versionedRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^(python|pip|node|ruby|perl|php)[\d.]*$`) })

// readOnlyRE are programs (and sub-commands) that only look: running
// them changes nothing a later command depends on.
var readOnlyRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:ls|ll|cat|head|tail|less|more|grep|egrep|fgrep|rg|ag|find|fd|locate|pwd|echo|printf|which|whereis|type|command\s+-v|wc|sort|uniq|diff|cmp|file|stat|du|df|tree|ps|top|htop|pgrep|env|printenv|date|whoami|id|uname|hostname|history|man|sleep|true|false|test|\[|jq|yq|xxd|od|hexdump|strings|readlink|realpath|basename|dirname|lsof|netstat|ss|free|nproc|cut|tr|awk|sed\s+-n|column|nl|tac|md5sum|sha\d*sum|python\d?(?:\.\d+)?\s+-m\s+json\.tool|git\s+(?:status|log|diff|show|branch|remote|rev-parse|blame|ls-files|describe|shortlog|reflog|grep|config\s+--get)|gh\s+\w+\s+(?:list|view|status|diff|checks)|go\s+(?:doc|list|env|version|vet)|cargo\s+(?:tree|metadata|search)|npm\s+(?:ls|list|view|info|outdated|search)|pip\d*\s+(?:list|show|freeze)|docker\s+(?:ps|images|logs|inspect)|kubectl\s+(?:get|describe|logs)|systemctl\s+status|journalctl|curl\s+(?:-s\S*\s+)?(?:-I|--head)|ping|dig|nslookup|host)\b`)
})

// queryRE is a database shell asked a query that only reads.
var queryRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)^\s*(?:sqlite3|psql|mysql|mariadb|duckdb|clickhouse-client)\b[^|;&]*?["']\s*(?:select|show|describe|desc|explain|pragma|with\s+\w+\s+as|\\d)\b`)
})

// ReadOnly reports whether every part of a command line only looks
// (lists, reads, searches, shows status): such a command cannot be what
// made a failing command pass.
func ReadOnly(cmd string) bool {
	if queryRE().MatchString(cmd) && len(Segments(Trim(cmd))) == 1 {
		return true
	}
	segs := Segments(cmd)
	if len(segs) == 0 {
		return true
	}
	for _, s := range segs {
		if strings.HasPrefix(s, "cd ") || s == "cd" {
			continue
		}
		if hasFlag(s, "--help") || hasFlag(s, "--version") || hasFlag(s, "-h") {
			continue
		}
		if !readOnlyRE().MatchString(s) {
			return false
		}
		if strings.HasPrefix(s, "find ") && (strings.Contains(s, "-delete") || strings.Contains(s, "-exec")) {
			return false
		}
	}
	return true
}

func hasFlag(seg, flag string) bool {
	for _, f := range strings.Fields(seg) {
		if f == flag {
			return true
		}
	}
	return false
}

// installRE marks a command that installs or adds a dependency.
var installRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)\b(?:pip\d*\s+install|uv\s+(?:pip\s+install|add|sync)|poetry\s+(?:add|install)|pipenv\s+install|conda\s+install|npm\s+(?:i|install|ci|add)|pnpm\s+(?:i|install|add)|yarn(?:\s+(?:add|install))?\s*$|yarn\s+(?:add|install)|bun\s+(?:add|install|i)|go\s+(?:get|mod\s+(?:tidy|download)|install)|cargo\s+(?:add|install|fetch)|apt(?:-get)?\s+install|brew\s+install|gem\s+install|bundle\s+install|dnf\s+install|yum\s+install|apk\s+add|pacman\s+-S|nix\s+profile\s+install|rustup\s+(?:component\s+add|target\s+add|install)|dotnet\s+(?:add|restore)|composer\s+(?:install|require)|mvn\s+install)\b`)
})

// Installs reports whether a command line installs or adds a package or
// a tool.
func Installs(cmd string) bool {
	for _, s := range Segments(cmd) {
		if installRE().MatchString(s) {
			return true
		}
	}
	return false
}

// manifestRE are the files that declare a project's dependencies: editing
// one can fix a missing package.
var manifestRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(?:^|/)(?:package\.json|cargo\.toml|go\.mod|pyproject\.toml|requirements[\w.-]*\.txt|setup\.(?:py|cfg)|pipfile|gemfile|pom\.xml|build\.gradle(?:\.kts)?|flake\.nix|shell\.nix|default\.nix|environment\.ya?ml|dockerfile|makefile|cmakelists\.txt|\.env(?:\.\w+)?|\.tool-versions|\.nvmrc|\.python-version)$`)
})

// Manifest reports whether a file declares dependencies or the build's
// environment (package.json, go.mod, Cargo.toml, a Dockerfile, .env, …).
func Manifest(file string) bool { return manifestRE().MatchString(file) }

// ErrorTag is the tag a fix memory carries for each of its error lines,
// by which the same error met later finds it.
func ErrorTag(errLine string) string { return "error:" + Signature(errLine) }

// CommandTag is the tag a fix memory carries for the program (and its
// sub-command) whose failure it is about: "command:go-test"; "" for a
// line that runs nothing.
func CommandTag(cmd string) string {
	k := CommandKey(cmd)
	if k == "" {
		return ""
	}
	var b strings.Builder
	b.WriteString("command:")
	dash := false
	for _, r := range strings.ToLower(k) {
		ok := r >= 'a' && r <= 'z' || r >= '0' && r <= '9' || r == '_' || r == '.'
		switch {
		case ok:
			b.WriteRune(r)
			dash = false
		case !dash:
			b.WriteByte('-')
			dash = true
		}
	}
	t := strings.TrimRight(b.String(), "-")
	if len(t) > maxTagBytes {
		t = t[:maxTagBytes]
	}
	if t == "command:" {
		return ""
	}
	return t
}

// maxTagBytes is the longest tag a memory may carry (cairn.MaxNameBytes).
const maxTagBytes = 128

// shapeRE is a trailing part of a pipeline that only shapes what is shown.
var shapeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:head|tail|grep|egrep|rg|less|more|sort|uniq|wc|cut|tr|tee|jq|column|cat|awk|sed)\b`)
})

// Trim is a command line without what only shapes its output: the
// trailing pipeline stages that filter what is shown (| tail -5, | grep
// x, | head), 2>&1 and other redirections of standard error, a trailing
// "&". Unlike Core it keeps quoted text and environment assignments: two
// lines with different Trim ran differently.
func Trim(cmd string) string {
	c := strings.TrimSpace(cmd)
	for {
		i := lastPipe(c)
		if i < 0 || !shapeRE().MatchString(strings.TrimSpace(c[i+1:])) {
			break
		}
		c = strings.TrimSpace(c[:i])
	}
	c = stderrRE().ReplaceAllString(c, "")
	c = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(c), "&"))
	return strings.Join(strings.Fields(c), " ")
}

var stderrRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`\s*\d?>&\d|\s*2>\s*/dev/null`) })

// lastPipe is the index of the last "|" of cmd that is a pipe (not "||",
// not inside quotes), -1 when none.
func lastPipe(cmd string) int {
	last := -1
	var quote byte
	for i := 0; i < len(cmd); i++ {
		c := cmd[i]
		switch {
		case quote != 0:
			if c == quote {
				quote = 0
			} else if c == '\\' && quote == '"' {
				i++
			}
		case c == '\'' || c == '"':
			quote = c
		case c == '\\':
			i++
		case c == '|':
			if i+1 < len(cmd) && cmd[i+1] == '|' {
				i++
				continue
			}
			if i > 0 && cmd[i-1] == '|' {
				continue
			}
			last = i
		}
	}
	return last
}

// inertRE are commands that change nothing a later run of a build, a test
// or a script depends on: recording work in git, talking to a server,
// asking a package manager what is there.
var inertRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`^(?:git\s+(?:add|commit|push|fetch|tag|notes|log|show|status|diff|remote|branch\s+-[a-z]*[dlv])|gh\s+\w+|curl|wget\s+--spider|http|brew\s+(?:list|info|search|doctor)|open|xdg-open|code|say|notify-send|osascript|clip|pbcopy|xclip|cargo\s+run|go\s+run|(?:npm|pnpm|yarn|bun)\s+(?:run\s+)?(?:start|dev|serve)|python\d?(?:\.\d+)?\s+-c|node\s+-e)\b`)
})

// Inert reports whether a command line cannot be what made a failing
// command pass: it only looks (ReadOnly), or only records or reports
// (git add, commit, push; an HTTP request whose answer is not saved;
// asking a package manager what is installed).
func Inert(cmd string) bool {
	if ReadOnly(cmd) {
		return true
	}
	for _, s := range Segments(cmd) {
		if strings.HasPrefix(s, "cd ") || s == "cd" || readOnlyRE().MatchString(s) {
			continue
		}
		if !inertRE().MatchString(s) {
			return false
		}
		if strings.HasPrefix(s, "curl") && (hasFlag(s, "-o") || hasFlag(s, "-O") || strings.Contains(s, "--output")) {
			return false
		}
	}
	t := Trim(cmd)
	return !strings.Contains(t, "| sh") && !strings.Contains(t, "| bash") && !strings.Contains(t, ">")
}
