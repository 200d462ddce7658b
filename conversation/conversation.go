package conversation

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/cairn-dev/cairn"
)

// Roles a message may have.
const (
	RoleUser      = "user"
	RoleAssistant = "assistant"
	RoleSystem    = "system"
)

// StateFile is the name of the state file inside the conversations folder.
const StateFile = "_state.json"

// timeLayout is the timestamp format of a month file line.
const timeLayout = "2006-01-02T15:04:05.000Z07:00"

// Message is one chat message (a ChatMessage line).
type Message struct {
	Role       string
	Content    string
	SenderName string
	Timestamp  time.Time
	// Line is the message's line in its month file, from 0; set by reads,
	// not written.
	Line int
}

type messageJSON struct {
	Role       string `json:"role"`
	Content    string `json:"content"`
	SenderName string `json:"senderName,omitempty"`
	Timestamp  string `json:"timestamp"`
}

// ValidRole reports whether r is a role a message may have.
func ValidRole(r string) bool {
	return r == RoleUser || r == RoleAssistant || r == RoleSystem
}

// MonthOf returns the month, "YYYY-MM", that t belongs to (in UTC).
func MonthOf(t time.Time) string { return t.UTC().Format("2006-01") }

var monthRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9]{4}-(0[1-9]|1[0-2])$`) })

// Log is the conversation log of one project, under
// Dir/conversations/<Project>.
type Log struct {
	Dir string // the data folder
	// Project is the project whose log this is. "" is the layout of
	// earlier versions, one log for the whole data folder, directly in
	// Dir/conversations (see AdoptLegacy).
	Project string
}

// Problem is a line of a month file that was skipped.
type Problem struct {
	Line   int // from 0
	Reason string
}

func (p Problem) String() string { return fmt.Sprintf("line %d: %s", p.Line+1, p.Reason) }

// Path returns the folder holding the month files and the state.
func (l *Log) Path() string {
	if l.Project == "" {
		return l.legacyPath()
	}
	return filepath.Join(l.legacyPath(), FolderName(l.Project))
}

func (l *Log) legacyPath() string { return filepath.Join(l.Dir, "conversations") }

// maxFolderName bounds a project folder's name, under the 255 bytes most
// file systems allow.
const maxFolderName = 200

// FolderName returns the name of a project's folder: the project's name,
// with "/", "\\", ":" and "%", a "." or "_" at its start and the "." of a
// ".jsonl" at its end written as %XX, so that any two projects have
// different folders inside the conversations folder, and none is named as
// a month file of the earlier layout or the state. A name longer
// than 200 bytes so written is cut, and ends with "~" and a hash of the
// whole name.
func FolderName(project string) string {
	var b strings.Builder
	for i := 0; i < len(project); i++ {
		c := project[i]
		if c == '/' || c == '\\' || c == ':' || c == '%' || (i == 0 && (c == '.' || c == '_')) ||
			(i == len(project)-len(".jsonl") && strings.HasSuffix(project, ".jsonl")) {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	name := b.String()
	if len(name) <= maxFolderName {
		return name
	}
	sum := sha256.Sum256([]byte(project))
	return cairn.CutBytes(name, maxFolderName-17) + "~" + hex.EncodeToString(sum[:8])
}

// MonthPath returns the file of a month.
func (l *Log) MonthPath(month string) string { return filepath.Join(l.Path(), month+".jsonl") }

// Append writes msg as one line of its month's file and returns the number
// of bytes written. The timestamp must be set and the role valid.
func (l *Log) Append(msg Message) (appended int, err error) {
	if !ValidRole(msg.Role) {
		return 0, fmt.Errorf("conversation: role %q is not user, assistant or system", msg.Role)
	}
	if msg.Timestamp.IsZero() {
		return 0, errors.New("conversation: the message has no timestamp")
	}
	b, err := json.Marshal(messageJSON{Role: msg.Role, Content: msg.Content, SenderName: msg.SenderName,
		Timestamp: msg.Timestamp.UTC().Format(timeLayout)})
	if err != nil {
		return 0, err
	}
	b = append(b, '\n')
	if err := os.MkdirAll(l.Path(), 0o700); err != nil {
		return 0, err
	}
	f, err := os.OpenFile(l.MonthPath(MonthOf(msg.Timestamp)), os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return 0, err
	}
	n, werr := f.Write(b) // one write per line: appenders never interleave
	cerr := f.Close()
	if werr != nil {
		return n, werr
	}
	return n, cerr
}

// Months returns the months that have a file, oldest first.
func (l *Log) Months() ([]string, error) {
	ents, err := os.ReadDir(l.Path())
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range ents {
		if m, ok := strings.CutSuffix(e.Name(), ".jsonl"); ok && monthRE().MatchString(m) && e.Type().IsRegular() {
			out = append(out, m)
		}
	}
	sort.Strings(out)
	return out, nil
}

// Batch is what a read of a month file found.
type Batch struct {
	Month    string
	Messages []Message // well-formed messages on lines From..To-1
	From, To int       // the line range read: To is the number of complete lines
	Problems []Problem // skipped lines
}

// Read reads the messages on lines from and after of a month's file. A
// missing file holds no lines.
func (l *Log) Read(month string, from int) (*Batch, error) {
	if !monthRE().MatchString(month) {
		return nil, fmt.Errorf("conversation: %q is not a month (YYYY-MM)", month)
	}
	if from < 0 {
		from = 0
	}
	b := &Batch{Month: month, From: from, To: from}
	f, err := os.Open(l.MonthPath(month))
	if errors.Is(err, os.ErrNotExist) {
		b.To = from
		return b, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	r := bufio.NewReaderSize(f, 64<<10)
	line := 0
	for {
		raw, err := r.ReadBytes('\n')
		if err == io.EOF {
			if len(bytes.TrimSpace(raw)) > 0 && line >= from {
				b.Problems = append(b.Problems, Problem{Line: line, Reason: "incomplete last line (no newline yet); not read"})
			}
			break
		}
		if err != nil {
			return nil, err
		}
		if line >= from {
			if m, reason := parseLine(raw); reason != "" {
				b.Problems = append(b.Problems, Problem{Line: line, Reason: reason})
			} else {
				m.Line = line
				b.Messages = append(b.Messages, m)
			}
		}
		line++
	}
	if line > from {
		b.To = line
	}
	return b, nil
}

func parseLine(raw []byte) (Message, string) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return Message{}, "empty line"
	}
	var j messageJSON
	if err := json.Unmarshal(raw, &j); err != nil {
		return Message{}, "not a JSON message: " + err.Error()
	}
	if j.Role == "" {
		return Message{}, "no role"
	}
	t, err := time.Parse(time.RFC3339Nano, j.Timestamp)
	if err != nil {
		return Message{}, fmt.Sprintf("bad timestamp %q", j.Timestamp)
	}
	return Message{Role: j.Role, Content: j.Content, SenderName: j.SenderName, Timestamp: t.UTC()}, ""
}

// PendingBatch reads the messages of a month not yet extracted.
func (l *Log) PendingBatch(month string) (*Batch, error) {
	st, err := l.ReadState()
	if err != nil {
		return nil, err
	}
	return l.Read(month, st[month].ExtractedUpTo)
}

// Pending returns the well-formed messages of a month not yet extracted and
// the line they start from. Malformed lines are skipped (PendingBatch
// reports them).
func (l *Log) Pending(month string) ([]Message, int, error) {
	b, err := l.PendingBatch(month)
	if err != nil {
		return nil, 0, err
	}
	return b.Messages, b.From, nil
}

// MarkExtracted records that the first upTo lines of a month are extracted.
// It never lowers the mark.
func (l *Log) MarkExtracted(month string, upTo int) error {
	return l.Update(func(st State) error {
		ms := st[month]
		if upTo > ms.ExtractedUpTo {
			ms.ExtractedUpTo = upTo
		}
		st[month] = ms
		return nil
	})
}

// AdoptLegacy moves into the project's folder the months of the data
// folder's single log, as earlier versions kept it (directly in
// Dir/conversations), that belong to the project: those whose state names
// the project (projectPath, which cairn set to the project's name). Each
// month keeps its lines and its extraction mark, so its pending messages
// stay pending. A month the state gives no project, or another one, stays
// where it is for that project; a month the project's folder already holds
// is left as it is. Running it again, or in two processes at once, moves
// nothing twice.
func (l *Log) AdoptLegacy() error {
	if l.Project == "" {
		return nil
	}
	legacy := &Log{Dir: l.Dir}
	months, err := legacy.Months()
	if err != nil || len(months) == 0 {
		return err
	}
	old, err := legacy.ReadState()
	if err != nil {
		return err
	}
	var mine []string
	for _, m := range months {
		if old[m].ProjectPath == l.Project {
			if _, err := os.Stat(l.MonthPath(m)); errors.Is(err, os.ErrNotExist) {
				mine = append(mine, m)
			}
		}
	}
	if len(mine) == 0 {
		return nil
	}
	// The state first: a crash after it leaves the month in the old place,
	// to be moved again next time.
	if err := l.Update(func(st State) error {
		for _, m := range mine {
			st[m] = old[m]
		}
		return nil
	}); err != nil {
		return err
	}
	for _, m := range mine {
		if err := os.Rename(legacy.MonthPath(m), l.MonthPath(m)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return err
		}
	}
	return legacy.Update(func(st State) error {
		for _, m := range mine {
			delete(st, m)
		}
		return nil
	})
}
