package memtool

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"

	"github.com/cairn-dev/cairn"
)

// Root is the memory directory every path lies in.
const Root = "/memories"

// KeyPrefix starts the key of every file's memory: the key is KeyPrefix
// followed by the file's path.
const KeyPrefix = "memfile:"

// MaxPathBytes is the longest path accepted, in bytes: the key
// (KeyPrefix and the path) must fit in cairn.MaxNameBytes.
const MaxPathBytes = cairn.MaxNameBytes - len(KeyPrefix)

// cleanPath validates a path given by the model and returns its canonical
// form: Root or Root + "/a/b", in Unicode NFC, without a trailing or
// repeated slash. The
// error is the answer for the model.
func cleanPath(param, p string) (string, error) {
	if p == "" {
		return "", failf("Error: Parameter `%s` is required; give a path under /memories, such as /memories/notes.md.", param)
	}
	bad := func(reason string) error {
		return failf("Error: The path %s is not a valid memory path: %s.", showPath(p), reason)
	}
	if !utf8.ValidString(p) {
		return "", bad("it is not valid UTF-8")
	}
	// One name, one file: "café" typed with a combining accent (NFD, as
	// macOS file names are) and with a precomposed one (NFC) are the same.
	p = norm.NFC.String(p)
	for _, r := range p {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			return "", bad("it must not contain control or invisible characters")
		}
	}
	if strings.Contains(p, `\`) {
		return "", bad(`it must not contain backslashes; separate names with "/"`)
	}
	if strings.Contains(p, "%") {
		return "", bad(`it must not contain "%" (percent-encoding is not decoded)`)
	}
	if p != Root && !strings.HasPrefix(p, Root+"/") {
		return "", bad("it must start with /memories/")
	}
	segs := []string{}
	for _, s := range strings.Split(p[len(Root):], "/") {
		switch s {
		case "":
			continue
		case ".", "..":
			return "", bad(`it must not contain "." or ".." segments`)
		}
		if strings.TrimSpace(s) != s {
			// The store trims keys: "/memories/a.md " would be a.md.
			return "", bad("a name must not start or end with white space")
		}
		segs = append(segs, s)
	}
	out := Root
	if len(segs) > 0 {
		out += "/" + strings.Join(segs, "/")
	}
	if len(out) > MaxPathBytes {
		return "", bad("it is " + strconv.Itoa(len(out)) + " bytes long, more than the limit of " + strconv.Itoa(MaxPathBytes))
	}
	return out, nil
}

// showPath renders a path for an error message: quoted when it holds
// characters that could confuse a reader, and cut when very long.
func showPath(p string) string {
	const max = 160
	cut := false
	if len(p) > max {
		p, cut = cairn.CutBytes(p, max), true
	}
	plain := utf8.ValidString(p)
	for _, r := range p {
		if unicode.IsControl(r) || unicode.Is(unicode.Cf, r) || r == ' ' || r == '`' {
			plain = false
		}
	}
	if !plain {
		p = strconv.Quote(p)
	}
	if cut {
		p += "…"
	}
	return p
}

// parent returns the directory holding path p (p is not Root).
func parent(p string) string {
	return p[:strings.LastIndexByte(p, '/')]
}

// within reports whether p is dir or lies under it.
func within(p, dir string) bool {
	return p == dir || strings.HasPrefix(p, dir+"/")
}
