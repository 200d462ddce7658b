package cairn

import (
	"path"
	"strings"
)

// A memory's file references (Memory.FileRefs) are paths or globs of the
// files it is about, usually relative to the project's folder. Every part
// of cairn that asks whether a memory is about a file (a context block
// for the files being worked on, the block before an edit, the lookup of
// a file, the search index's terms for references) asks FileRefMatch.

// fileGlobChars are the characters that make a reference a glob
// (path.Match's syntax, with "**" for any number of folders).
const fileGlobChars = `*?[\`

// IsFileGlob reports whether the cleaned reference r is a glob.
func IsFileGlob(r string) bool { return strings.ContainsAny(r, fileGlobChars) }

// CleanFileRef is a file reference or a file path as matching reads it:
// without surrounding space, "./", a trailing "/" or doubled slashes. A
// path without wildcards (* ? [) has its backslashes read as folder
// separators (a Windows path); in a glob a backslash escapes. "" for a
// reference to nothing ("", ".", "/").
func CleanFileRef(r string) string {
	r = strings.TrimSpace(r)
	if !strings.ContainsAny(r, "*?[") {
		r = strings.ReplaceAll(r, `\`, "/")
	}
	if IsFileGlob(r) {
		for strings.HasPrefix(r, "./") {
			r = r[2:]
		}
		r = strings.TrimRight(r, "/")
	} else if r != "" {
		r = path.Clean(r)
	}
	if r == "." || r == "/" {
		return ""
	}
	return r
}

// The strengths of FileRefMatch.
const (
	FileSame   = 1.0 // the same file, or a glob that matches it
	FileTail   = 0.8 // the same file named from two folders (see FileRefMatch)
	FileFolder = 0.6 // a folder that holds it
)

// FileRefMatch says how well the reference ref names the file f, both
// cleaned as CleanFileRef does:
//
//   - FileSame when they are equal, when ref is a glob that matches f
//     ("**" matches any number of folders, none included), or when f is
//     a glob that matches ref (files given as a pattern);
//   - FileTail when one ends with the other at a folder boundary and the
//     longer is absolute (/home/u/p/src/a.go is the project's src/a.go),
//     or ref is a bare file name ("token.go" names internal/token.go):
//     two relative paths with folders name different files, and a file
//     given by its bare name is the one in the project's folder;
//   - FileFolder when ref is a folder that holds f, or a glob of a
//     folder's files ("src/*", "src/**") and f lies deeper under it;
//   - else 0.
//
// An absolute f and a relative ref: ref is matched against each tail of f
// (the project's path of it, wherever the project is), a match counting
// at most FileTail.
func FileRefMatch(ref, f string) float64 {
	ref, f = CleanFileRef(ref), CleanFileRef(f)
	if ref == "" || f == "" {
		return 0
	}
	best := matchRef(ref, f)
	if best < FileTail && path.IsAbs(f) && !path.IsAbs(ref) && !IsFileGlob(f) {
		for i := 1; i < len(f); i++ {
			if f[i] == '/' {
				best = max(best, min(FileTail, matchRef(ref, f[i+1:])))
			}
		}
	}
	return best
}

// matchRef is FileRefMatch of a cleaned reference and file.
func matchRef(ref, f string) float64 {
	if ref == f {
		return FileSame
	}
	refGlob, fGlob := IsFileGlob(ref), IsFileGlob(f)
	switch {
	case refGlob:
		if globMatch(ref, f) {
			return FileSame
		}
		if dir, ok := folderGlob(ref); ok && strings.HasPrefix(f, dir+"/") {
			return FileFolder
		}
		return 0
	case fGlob:
		if globMatch(f, ref) {
			return FileSame
		}
		return 0
	}
	if tailOf(ref, f, true) || tailOf(f, ref, false) {
		return FileTail
	}
	if strings.HasPrefix(f, ref+"/") {
		return FileFolder
	}
	return 0
}

// tailOf reports whether long ends with short at a folder boundary, long
// being absolute or, when bare may, short a bare file name.
func tailOf(short, long string, bare bool) bool {
	if len(long) <= len(short) || !strings.HasSuffix(long, "/"+short) {
		return false
	}
	return path.IsAbs(long) || bare && !strings.Contains(short, "/")
}

// folderGlob returns the folder of a glob that names a folder's files: its
// last element is "*" or "**".
func folderGlob(g string) (string, bool) {
	i := strings.LastIndexByte(g, '/')
	if i <= 0 || (g[i+1:] != "*" && g[i+1:] != "**") || IsFileGlob(g[:i]) {
		return "", false
	}
	return g[:i], true
}

// globMatch matches f against glob g, element by element, "**" matching
// any number of folders (none included).
func globMatch(g, f string) bool {
	if ok, _ := path.Match(g, f); ok {
		return true
	}
	if !strings.Contains(g, "**") {
		return false
	}
	gs, fs := strings.Split(g, "/"), strings.Split(f, "/")
	var match func(gi, fi int) bool
	match = func(gi, fi int) bool {
		if gi == len(gs) {
			return fi == len(fs)
		}
		if gs[gi] == "**" {
			for k := fi; k <= len(fs); k++ {
				if match(gi+1, k) {
					return true
				}
			}
			return false
		}
		if fi == len(fs) {
			return false
		}
		if ok, _ := path.Match(gs[gi], fs[fi]); !ok {
			return false
		}
		return match(gi+1, fi+1)
	}
	return match(0, 0)
}

// FileMatch is how well m is about any of files: the best FileRefMatch of
// its references and the files, 0 when none names one. To match many
// memories against the same files, a FileMatcher matches each reference
// once.
func (m *Memory) FileMatch(files []string) float64 { return NewFileMatcher(files).Match(m) }

// refMatch is the best FileRefMatch of reference r and files.
func refMatch(r string, files []string) float64 {
	v := 0.0
	for _, f := range files {
		if v = max(v, FileRefMatch(r, f)); v == FileSame {
			break
		}
	}
	return v
}

// FileMatcher is Memory.FileMatch for one list of files, remembering how
// well each reference it was asked about names them: the memories a block
// weighs share many references (a folder, a glob), and matching one
// cleans it and the files and may match a glob element by element. Not
// safe for concurrent use.
type FileMatcher struct {
	files []string
	refs  map[string]float64 // a reference's best FileRefMatch of the files
}

// NewFileMatcher returns a FileMatcher for files, which the caller leaves
// unchanged while it uses the matcher.
func NewFileMatcher(files []string) *FileMatcher { return &FileMatcher{files: files} }

// Match is m.FileMatch of the matcher's files.
func (fm *FileMatcher) Match(m *Memory) float64 {
	best := 0.0
	for _, r := range m.FileRefs {
		v, ok := fm.refs[r]
		if !ok {
			v = refMatch(r, fm.files)
			if fm.refs == nil {
				fm.refs = map[string]float64{}
			}
			fm.refs[r] = v
		}
		if best = max(best, v); best == FileSame {
			return best
		}
	}
	return best
}
