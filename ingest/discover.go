package ingest

import (
	"bufio"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cairn-dev/cairn/transcript"
)

// Source is one transcript on disk.
type Source struct {
	Kind    string
	Path    string
	CWD     string // the working directory its lines name; "" when none does
	Size    int64
	ModTime time.Time
}

// Where says where the agents keep their transcripts; "" takes the
// default under Home.
type Where struct {
	Home      string // the user's home folder
	ClaudeDir string // Claude Code's config folder ($CLAUDE_CONFIG_DIR; default Home/.claude)
	CodexHome string // Codex's home ($CODEX_HOME; default Home/.codex)
}

// Dir is the folder that holds kind's transcripts.
func (w Where) Dir(kind string) string {
	switch kind {
	case Claude:
		d := w.ClaudeDir
		if d == "" {
			d = filepath.Join(w.Home, ".claude")
		}
		return filepath.Join(d, "projects")
	case Codex:
		d := w.CodexHome
		if d == "" {
			d = filepath.Join(w.Home, ".codex")
		}
		return filepath.Join(d, "sessions")
	}
	return ""
}

// Discover lists kind's transcripts, oldest first (so that a later
// session's summary is written after an earlier one's). With root set,
// only those whose working directory is root or inside it; with root "",
// every one. A folder that does not exist holds none; unreadable entries
// are skipped.
func Discover(kind string, w Where, root string) ([]Source, error) {
	dir := w.Dir(kind)
	if dir == "" {
		return nil, nil
	}
	root = filepath.Clean(root)
	var out []Source
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p == dir {
				return fs.SkipAll // no such folder: no transcripts
			}
			return nil
		}
		if d.IsDir() || !strings.HasSuffix(d.Name(), ".jsonl") {
			return nil
		}
		if kind == Codex && !strings.HasPrefix(d.Name(), "rollout-") {
			return nil
		}
		info, err := d.Info()
		if err != nil {
			return nil
		}
		src := Source{Kind: kind, Path: p, Size: info.Size(), ModTime: info.ModTime()}
		src.CWD = cwdOf(kind, p)
		if root != "." && root != "" && !within(src.CWD, root) {
			return nil
		}
		out = append(out, src)
		return nil
	})
	sort.Slice(out, func(i, j int) bool {
		if !out[i].ModTime.Equal(out[j].ModTime) {
			return out[i].ModTime.Before(out[j].ModTime)
		}
		return out[i].Path < out[j].Path
	})
	return out, err
}

// within reports whether dir is root or inside it.
func within(dir, root string) bool {
	if dir == "" {
		return false
	}
	dir = filepath.Clean(dir)
	return dir == root || strings.HasPrefix(dir, root+string(filepath.Separator))
}

// cwdOf is the working directory a transcript's first lines name.
func cwdOf(kind, path string) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	if kind == Codex {
		return transcript.CodexSessionOf(path, bufio.NewReader(f)).CWD
	}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 64<<10), transcript.MaxLine)
	for i := 0; i < 50 && sc.Scan(); i++ {
		var l struct {
			CWD string `json:"cwd"`
		}
		if json.Unmarshal(sc.Bytes(), &l) == nil && l.CWD != "" {
			return l.CWD
		}
	}
	return ""
}

func sortedKeys(m map[string]int) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Slice(keys, func(i, j int) bool {
		if m[keys[i]] != m[keys[j]] {
			return m[keys[i]] > m[keys[j]]
		}
		return keys[i] < keys[j]
	})
	return keys
}

// plural is "1 fix", "3 fixes", "2 sessions".
func plural(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	switch {
	case strings.HasSuffix(noun, "x") || strings.HasSuffix(noun, "s"):
		noun += "es"
	case strings.HasSuffix(noun, "y") && !strings.HasSuffix(noun, "ey"):
		noun = noun[:len(noun)-1] + "ies"
	default:
		noun += "s"
	}
	return strconv.Itoa(n) + " " + noun
}
