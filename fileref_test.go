package cairn_test

import (
	"testing"

	"github.com/cairn-dev/cairn"
)

// One matcher decides whether a memory is about a file, for the block
// before an edit and for the lookup of a file alike. The cases marked
// "was" are those where the two matchers cairn had answered differently:
// the block's (glob either way, folder prefix) and the lookup's (suffix,
// "**" by element); the answer kept is the one a person means.
func TestFileRefMatchNamesTheSameFileOnce(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		ref, file string
		want      float64
	}{
		{"src/a.go", "src/a.go", cairn.FileSame},
		{"./src/a.go", "src/a.go", cairn.FileSame},
		{"src//a.go", "src/./a.go", cairn.FileSame},
		{`src\auth\token.go`, "src/auth/token.go", cairn.FileSame}, // a Windows path
		{"src/*.go", "src/a.go", cairn.FileSame},
		{"src/*.go", "src/sub/a.go", 0},
		{"*.go", "main.go", cairn.FileSame},
		{"*.go", "a/main.go", 0},
		{"**/*_test.go", "internal/a/b_test.go", cairn.FileSame},
		{"**/*_test.go", "b_test.go", cairn.FileSame},
		{"a/**/b/*.go", "a/x/y/b/c.go", cairn.FileSame},
		{"a/**/b/**/*.go", "a/x/b/y/z/c.go", cairn.FileSame}, // was: the block's matcher read a second "**" as "*"
		{"src/**", "src/a/b.go", cairn.FileSame},
		{"src/**", "src", cairn.FileSame}, // was: no for the block
		{"src/*", "src/a.go", cairn.FileSame},
		{"src/*", "src/sub/x.go", cairn.FileFolder}, // was: no for the lookup; "src/*" is said of the folder
		{"src/a*", "src/a/b.go", 0},                 // was: yes for the block: a glob of names is no folder
		{"src", "src/a/b.go", cairn.FileFolder},
		{"src/", "src/a.go", cairn.FileFolder},
		{"src/a.go", "src/a.go/x", cairn.FileFolder},
		{"src/a.go", "src/a.gox", 0},
		{"token.go", "internal/auth/token.go", cairn.FileTail}, // was: no for the block
		{"src/a.go", "/home/u/proj/src/a.go", cairn.FileTail},  // was: no for the block
		{"/home/u/proj/src/a.go", "src/a.go", cairn.FileTail},  // was: no for the block
		{"auth/token.go", "internal/auth/token.go", 0},         // was: yes for the lookup; two relative paths
		{"internal/auth/token.go", "auth/token.go", 0},         // was: yes for the lookup
		{"internal/auth/token.go", "token.go", 0},              // was: yes for the lookup; a bare file is the one at the root
		{"src/a.go", "other/a.go", 0},
		{"a.go", "ba.go", 0},
		{"src/*", "/home/u/proj/src/a.go", cairn.FileTail},           // a glob of the project's path of an absolute one
		{"src", "/home/u/proj/src/a/b.go", cairn.FileFolder},         // a folder that holds it
		{"**/*_test.go", "/home/u/proj/a/b_test.go", cairn.FileSame}, // "**" spans any folders
		{"lib/*.go", "/home/u/proj/src/a.go", 0},
		{"src/a.go", "src/*.go", cairn.FileSame}, // files given as a pattern
		{"src/a.go", "*.go", 0},
		{"", "src/a.go", 0},
		{".", "src/a.go", 0},
		{"/", "/etc/hosts", 0},
		{"src/a.go", "", 0},
	} {
		if got := cairn.FileRefMatch(c.ref, c.file); got != c.want {
			t.Errorf("FileRefMatch(%q, %q) = %v, want %v", c.ref, c.file, got, c.want)
		}
	}
}

func TestMemoryFileMatchIsTheBestOfItsReferences(t *testing.T) {
	t.Parallel()
	m := &cairn.Memory{FileRefs: []string{"docs", "token.go", "internal/auth/token.go"}}
	if got := m.FileMatch([]string{"README.md", "internal/auth/token.go"}); got != cairn.FileSame {
		t.Fatalf("FileMatch = %v, want %v", got, cairn.FileSame)
	}
	if got := m.FileMatch([]string{"docs/a.md"}); got != cairn.FileFolder {
		t.Fatalf("FileMatch = %v, want %v", got, cairn.FileFolder)
	}
	if got := m.FileMatch([]string{"main.go"}); got != 0 {
		t.Fatalf("FileMatch = %v, want 0", got)
	}
	if got := (&cairn.Memory{}).FileMatch([]string{"a.go"}); got != 0 {
		t.Fatalf("a memory without references matches %v", got)
	}
}

// A FileMatcher kept across memories answers what FileMatch (a matcher
// of its own for each memory) answers, for memories that share
// references and for each of them asked again, and both answer the best
// FileRefMatch of the memory's references and the files.
func TestFileMatcherAnswersWhatFileMatchAnswers(t *testing.T) {
	t.Parallel()
	refs := []string{"docs", "token.go", "internal/auth/token.go", "src/*", "**/*_test.go", "src/a.go", "./src//a.go",
		"/home/u/proj/src/a.go", "lib/*.go", "", "src", "a/**/b/*.go", "src/a*", "other/a.go"}
	fileSets := [][]string{
		{"src/a.go"}, {"README.md", "internal/auth/token.go"}, {"docs/a.md"}, {"/home/u/proj/src/a.go"},
		{"src/*.go"}, {"a/x/y/b/c.go", "src/b_test.go"}, {"main.go"}, {},
	}
	var mems []*cairn.Memory
	for i := range refs {
		for j := i; j <= min(i+2, len(refs)); j++ {
			mems = append(mems, &cairn.Memory{FileRefs: refs[i:j]})
		}
	}
	for _, files := range fileSets {
		fm := cairn.NewFileMatcher(files)
		for round := range 2 {
			for _, m := range mems {
				if got, want := fm.Match(m), m.FileMatch(files); got != want {
					t.Errorf("files %q, round %d: Match of references %q = %v, FileMatch = %v", files, round, m.FileRefs, got, want)
				}
				best := 0.0
				for _, r := range m.FileRefs {
					for _, f := range files {
						best = max(best, cairn.FileRefMatch(r, f))
					}
				}
				if got := fm.Match(m); got != best {
					t.Errorf("files %q, round %d: Match of references %q = %v, their best FileRefMatch %v", files, round, m.FileRefs, got, best)
				}
			}
		}
	}
}

func TestCleanFileRef(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		" ./a/b/ ": "a/b", `a\b.go`: "a/b.go", `a/b\*.go`: `a/b\*.go`, "./*.go": "*.go", "src/**/": "src/**",
		"a/../b.go": "b.go", ".": "", "/": "", "": "", "/abs/x": "/abs/x",
	} {
		if got := cairn.CleanFileRef(in); got != want {
			t.Errorf("CleanFileRef(%q) = %q, want %q", in, got, want)
		}
	}
}
