package redact

import (
	pathpkg "path"
	"regexp"
	"strings"
	"sync"
)

// Paths rewrites the absolute paths in what an agent's session says so
// that a memory holds no one's personal folder: a path inside the
// project's folder (Root) becomes relative to it, and a path under a home
// folder elsewhere (/home/NAME, /Users/NAME, C:\Users\NAME, /mnt/c/Users/NAME,
// or Home) starts with "~" instead. The zero value rewrites home folders
// only.
type Paths struct {
	Root string // the project's folder; "" when unknown
	Home string // the user's home folder; "" when unknown
}

// homeRE is a home folder of a named user, up to its end.
var homeRE = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?:/mnt/[a-z])?(?:/home|/Users|/users)/[^/\\\s'"` + "`" + `:;,()<>|]+|[A-Za-z]:\\+Users\\+[^\\/\s'"` + "`" + `:;,()<>|]+|[A-Za-z]:/Users/[^/\s'"` + "`" + `:;,()<>|]+`)
})

// Text returns s with the paths rewritten: Root and what follows it as a
// path relative to the project ("/src/app/cmd/x.go" with Root "/src/app"
// is "cmd/x.go"; Root itself is "."), then every home folder as "~".
func (p Paths) Text(s string) string {
	if root := trimSep(p.Root); len(root) > 1 && strings.Contains(s, root) {
		s = replacePrefixes(s, root, "")
	}
	if home := trimSep(p.Home); len(home) > 1 && strings.Contains(s, home) {
		s = replacePrefixes(s, home, "~")
	}
	return homeRE().ReplaceAllString(s, "~")
}

// replacePrefixes replaces each occurrence of the folder dir in s that
// stands as a whole path component: dir followed by a separator becomes
// with (a relative path when with is ""), dir alone becomes with or ".".
func replacePrefixes(s, dir, with string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, dir)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(dir)
		if i > 0 && pathByte(s[i-1]) {
			b.WriteString(s[:end]) // inside a longer path: /x/src/app is not /src/app
			s = s[end:]
			continue
		}
		switch {
		case end < len(s) && (s[end] == '/' || s[end] == '\\'):
			b.WriteString(s[:i])
			if with == "" {
				end++ // "ROOT/x" -> "x"
			} else {
				b.WriteString(with)
			}
		case end == len(s) || !pathByte(s[end]):
			b.WriteString(s[:i])
			if with == "" {
				b.WriteString(".")
			} else {
				b.WriteString(with)
			}
		default:
			b.WriteString(s[:end]) // a longer name: /src/apple is not /src/app
		}
		s = s[end:]
	}
}

func pathByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-' || c == '.' || c == '/' || c == '\\' || c == '~' || c == '@' || c == '+'
}

func trimSep(dir string) string {
	dir = strings.TrimSpace(dir)
	for len(dir) > 1 && (strings.HasSuffix(dir, "/") || strings.HasSuffix(dir, `\`)) {
		dir = dir[:len(dir)-1]
	}
	return dir
}

// File returns how a memory refers to the file at path, an absolute path
// or one relative to cwd (the folder the agent's command ran in): a path
// relative to the project when the file is inside it (ok true: a file
// reference), "~/…" for a file under a home folder elsewhere, the path
// itself for other absolute paths (ok false: mention it, do not refer to
// it), and "" for what is no file of the project's work at all: the
// agent's own plans, settings and memory under ~/.claude or ~/.codex and
// temporary files.
func (p Paths) File(path, cwd string) (ref string, ok bool) {
	path = strings.TrimSpace(path)
	if path == "" {
		return "", false
	}
	abs := path
	if !isAbs(path) && !strings.HasPrefix(path, "~") {
		c := trimSep(cwd)
		if c == "" {
			c = trimSep(p.Root)
		}
		if c == "" {
			return cleanRel(path), true
		}
		abs = c + "/" + path
	}
	if !strings.Contains(abs, `\`) {
		abs = pathpkg.Clean(abs)
	}
	if root := trimSep(p.Root); root != "" {
		if rest, found := strings.CutPrefix(abs, root+"/"); found {
			return cleanRel(rest), true
		}
	}
	s := p.Text(abs)
	switch {
	case strings.HasPrefix(s, "~/.claude/") || strings.HasPrefix(s, "~/.codex/") || strings.HasPrefix(s, `~\.claude\`):
		return "", false
	case strings.HasPrefix(s, "/tmp/") || strings.HasPrefix(s, "/var/tmp/") || strings.HasPrefix(s, "/private/tmp/") ||
		strings.HasPrefix(s, "/var/folders/") || strings.HasPrefix(s, "/dev/"):
		return "", false
	}
	return s, false
}

func isAbs(p string) bool {
	return strings.HasPrefix(p, "/") || strings.HasPrefix(p, `\`) || len(p) > 2 && p[1] == ':' && (p[2] == '\\' || p[2] == '/')
}

// cleanRel is a relative path without "./" and with "/" separators.
func cleanRel(p string) string {
	p = strings.ReplaceAll(p, `\`, "/")
	for strings.HasPrefix(p, "./") {
		p = p[2:]
	}
	return p
}
