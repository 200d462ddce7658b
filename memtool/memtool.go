package memtool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/redact"
)

// FileType is the memory type of every file the tool creates.
const FileType = "context"

// FileTag is the tag every file's memory carries; the tool lists the
// project's memories with this tag.
const FileTag = "memfile"

// ToolType and ToolName are what an application declares in its Messages
// API request: {"type": "memory_20250818", "name": "memory"}.
const (
	ToolType = "memory_20250818"
	ToolName = "memory"
)

// Command is one call of the memory tool: the tool_use input, with the
// same JSON field names. Which fields count depends on Command:
//
//	view         path, view_range (optional, files only: [start, end], end -1 for the last line)
//	create       path, file_text
//	str_replace  path, old_str, new_str (missing new_str deletes old_str)
//	insert       path, insert_line (0 inserts before the first line), insert_text
//	delete       path
//	rename       old_path, new_path
type Command struct {
	Command    string `json:"command"`
	Path       string `json:"path,omitempty"`
	ViewRange  []int  `json:"view_range,omitempty"`
	FileText   string `json:"file_text,omitempty"`
	OldStr     string `json:"old_str,omitempty"`
	NewStr     string `json:"new_str,omitempty"`
	InsertLine *int   `json:"insert_line,omitempty"` // required by insert; a pointer so that a missing one is told from 0
	InsertText string `json:"insert_text,omitempty"`
	OldPath    string `json:"old_path,omitempty"`
	NewPath    string `json:"new_path,omitempty"`
}

// Error is a failure the model should see: Message is the whole answer to
// send back as the tool result (with is_error set), e.g. "The path
// /memories/x.md does not exist. Please provide a valid path.". Run
// returns an *Error for every mistake in the command; any other error is
// internal (the store failed) and its text is not meant for the model.
type Error struct {
	Message string
}

func (e *Error) Error() string { return e.Message }

func failf(format string, args ...any) error {
	return &Error{Message: fmt.Sprintf(format, args...)}
}

// Tool runs memory tool commands against one project's memories. It is
// safe for concurrent use; its fields must not change once it is in use.
type Tool struct {
	svc     cairn.Service
	project string

	// mu runs one command at a time: a command reads the files, then
	// writes, and two agents sharing one server must not interleave.
	mu sync.Mutex

	// Agent and SessionID, when set, are recorded as the provenance of the
	// files the tool writes (cairn's agent and session fields).
	Agent     string
	SessionID string
}

// New returns a Tool that stores the files of /memories as memories of
// project in svc (see the package documentation for the mapping).
func New(svc cairn.Service, project string) *Tool {
	return &Tool{svc: svc, project: project}
}

// Run executes one command and returns the answer for the model. A
// mistake in the command (a bad path, a missing file, text that is not
// unique) returns an *Error whose Message is the answer to send with
// is_error; any other error means the store failed.
//
// Commands of one Tool run one at a time. An edit (str_replace, insert)
// writes only if the file is still as it read it; when another process
// changed it in between, the edit is applied again to the new text, so
// that neither change is lost.
func (t *Tool) Run(ctx context.Context, c Command) (string, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	for try := 1; ; try++ {
		out, err := t.run(ctx, c)
		if !errors.Is(err, errChanged) {
			return out, err
		}
		if try == maxEditTries {
			return "", failf("Error: The file %s kept changing while it was being edited; view it again and retry.", showPath(c.Path))
		}
	}
}

// maxEditTries bounds how often an edit is applied again to a file that
// keeps changing under it.
const maxEditTries = 5

// errChanged is an edit's write refused because the file changed after it
// was read.
var errChanged = errors.New("the file changed while it was being edited")

func (t *Tool) run(ctx context.Context, c Command) (string, error) {
	switch c.Command {
	case "view":
		return t.view(ctx, c)
	case "create":
		return t.create(ctx, c)
	case "str_replace":
		return t.strReplace(ctx, c)
	case "insert":
		return t.insert(ctx, c)
	case "delete":
		return t.delete(ctx, c)
	case "rename":
		return t.rename(ctx, c)
	case "":
		return "", failf("Error: Parameter `command` is required; use one of view, create, str_replace, insert, delete, rename.")
	}
	return "", failf("Error: Unknown command %s; use one of view, create, str_replace, insert, delete, rename.", strconv.Quote(c.Command))
}

// Handle runs the input of a memory tool_use block (as the Messages API
// sent it) and returns the text of the tool_result to send back, and
// whether to mark it is_error. It never fails: a store failure becomes an
// error answer too. For example, given the block
//
//	{"type": "tool_use", "id": "toolu_01", "name": "memory",
//	 "input": {"command": "create", "path": "/memories/auth.md", "file_text": "Refresh returns nil, nil for unknown tokens.\n"}}
//
// Handle(ctx, block.Input) returns ("File created successfully at: /memories/auth.md", false),
// and the application answers in the next user message with
//
//	{"type": "tool_result", "tool_use_id": "toolu_01",
//	 "content": "File created successfully at: /memories/auth.md"}
//
// adding "is_error": true when isError is set.
func (t *Tool) Handle(ctx context.Context, input json.RawMessage) (result string, isError bool) {
	var c Command
	if err := json.Unmarshal(input, &c); err != nil {
		return "Error: The input is not a valid memory command (" + err.Error() + ").", true
	}
	out, err := t.Run(ctx, c)
	if err != nil {
		return ErrorText(err), true
	}
	return out, false
}

// ErrorText returns the answer for the model for an error from Run: an
// *Error's message, or one sentence for a store failure that reveals no
// detail of it.
func ErrorText(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Message
	}
	if cairn.ErrorCode(err) == cairn.EUNAVAILABLE {
		return "Error: The memory store is busy or unavailable; try again."
	}
	return "Error: The memory store failed to run the command; nothing may have changed."
}

// storeErr turns an input error of the engine (cairn.EINVALID) into an
// answer for the model, and leaves other errors as they are.
func storeErr(err error) error {
	if err == nil {
		return nil
	}
	var ce *cairn.Error
	if cairn.ErrorCode(err) == cairn.EINVALID && errors.As(err, &ce) {
		msg := ce.Message
		if msg != "" {
			msg = strings.ToUpper(msg[:1]) + msg[1:]
		}
		return failf("Error: %s.", strings.TrimSuffix(msg, "."))
	}
	return err
}

// tree is the project's files at one moment: path → memory.
type tree map[string]*cairn.Memory

func (t *Tool) load(ctx context.Context) (tree, error) {
	ms, _, err := t.svc.FindMemories(ctx, cairn.MemoryFilter{
		Project:   t.project,
		Tags:      []string{FileTag},
		Sort:      cairn.SortCreatedAsc,
		SkipTotal: true,
	})
	if err != nil {
		return nil, err
	}
	fs := tree{}
	for _, m := range ms {
		raw, ok := strings.CutPrefix(m.Key, KeyPrefix)
		if !ok || m.Project != t.project {
			continue
		}
		p, err := cleanPath("path", raw)
		if err != nil || p != raw || p == Root {
			continue
		}
		if _, dup := fs[p]; !dup { // the oldest wins
			fs[p] = m
		}
	}
	return fs, nil
}

// isDir reports whether p is a directory: Root, or a prefix of a file.
func (fs tree) isDir(p string) bool {
	if p == Root {
		return true
	}
	for f := range fs {
		if strings.HasPrefix(f, p+"/") {
			return true
		}
	}
	return false
}

// under returns the files in directory dir (at any depth), sorted.
func (fs tree) under(dir string) []string {
	var out []string
	for f := range fs {
		if strings.HasPrefix(f, dir+"/") {
			out = append(out, f)
		}
	}
	sort.Strings(out)
	return out
}

// fileAncestor returns an ancestor directory of p that is a file, or "".
func (fs tree) fileAncestor(p string) string {
	for d := parent(p); d != Root; d = parent(d) {
		if _, ok := fs[d]; ok {
			return d
		}
	}
	return ""
}

// lines splits text into its lines: a final "\n" ends the last line.
func lines(text string) []string {
	return strings.Split(strings.TrimSuffix(text, "\n"), "\n")
}

// numbered renders lines[from-1:to] with 6-wide line numbers and a tab.
func numbered(ls []string, from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		if i > from {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%6d\t%s", i, ls[i-1])
	}
	return b.String()
}

func (t *Tool) view(ctx context.Context, c Command) (string, error) {
	p, err := cleanPath("path", c.Path)
	if err != nil {
		return "", err
	}
	fs, err := t.load(ctx)
	if err != nil {
		return "", err
	}
	if m, ok := fs[p]; ok {
		ls := lines(m.Content)
		from, to := 1, len(ls)
		if c.ViewRange != nil {
			if from, to, err = viewRange(c.ViewRange, len(ls)); err != nil {
				return "", err
			}
		}
		return "Here's the content of " + p + " with line numbers:\n" + numbered(ls, from, to), nil
	}
	if !fs.isDir(p) {
		return "", failf("The path %s does not exist. Please provide a valid path.", p)
	}
	if c.ViewRange != nil {
		return "", failf("Error: The `view_range` parameter is not allowed when `path` points to a directory.")
	}
	return listing(fs, p), nil
}

// viewRange checks [start, end] against a file of n lines and returns the
// lines to show. An end past the last line shows up to the last line.
func viewRange(r []int, n int) (int, int, error) {
	if len(r) != 2 {
		return 0, 0, failf("Error: Invalid `view_range`: it should be a list of two integers, [start, end].")
	}
	from, to := r[0], r[1]
	if from < 1 || from > n {
		return 0, 0, failf("Error: Invalid `view_range`: [%d, %d]. Its first element `%d` should be within the range of lines of the file: [1, %d]", from, to, from, n)
	}
	switch {
	case to == -1 || to > n:
		to = n
	case to < from:
		return 0, 0, failf("Error: Invalid `view_range`: [%d, %d]. Its second element `%d` should be larger or equal than its first `%d`", from, to, to, from)
	}
	return from, to, nil
}

// listing renders directory dir two levels deep, with sizes, the way the
// reference does; hidden items and node_modules are left out.
func listing(fs tree, dir string) string {
	type node struct {
		size int
		kids map[string]*node
	}
	root := &node{kids: map[string]*node{}}
	for _, f := range fs.under(dir) {
		segs := strings.Split(f[len(dir)+1:], "/")
		hidden := false
		for _, s := range segs {
			if strings.HasPrefix(s, ".") || s == "node_modules" {
				hidden = true
			}
		}
		if hidden {
			continue
		}
		size := len(fs[f].Content)
		n := root
		n.size += size
		for _, s := range segs {
			k := n.kids[s]
			if k == nil {
				k = &node{kids: map[string]*node{}}
				n.kids[s] = k
			}
			k.size += size
			n = k
		}
	}
	var b strings.Builder
	b.WriteString("Here're the files and directories up to 2 levels deep in " + dir + ", excluding hidden items and node_modules:\n")
	b.WriteString(humanSize(root.size) + "\t" + dir)
	var walk func(n *node, at string, depth int)
	walk = func(n *node, at string, depth int) {
		names := make([]string, 0, len(n.kids))
		for s := range n.kids {
			names = append(names, s)
		}
		sort.Strings(names)
		for _, s := range names {
			k := n.kids[s]
			shown := at + "/" + s
			if len(k.kids) > 0 {
				shown += "/"
			}
			b.WriteString("\n" + humanSize(k.size) + "\t" + shown)
			if depth < 2 {
				walk(k, at+"/"+s, depth+1)
			}
		}
	}
	walk(root, dir, 1)
	return b.String()
}

// humanSize renders a byte count like du -h: 512B, 1.5K, 2.0M.
func humanSize(n int) string {
	switch {
	case n < 1024:
		return strconv.Itoa(n) + "B"
	case n < 1024*1024:
		return fmt.Sprintf("%.1fK", float64(n)/1024)
	}
	return fmt.Sprintf("%.1fM", float64(n)/(1024*1024))
}

// checkText validates the text a file would hold after a command.
func checkText(text, what string) error {
	switch {
	case strings.IndexByte(text, 0) >= 0:
		return failf("Error: The %s contains a NUL byte; memory files hold text only.", what)
	case len(text) > cairn.MaxContentBytes:
		return failf("Error: The %s would be %d bytes, more than the limit of %d bytes for one memory file; split it into several files.", what, len(text), cairn.MaxContentBytes)
	case strings.TrimSpace(text) == "":
		return failf("Error: The %s would be empty; a memory file must hold some text (delete the file instead).", what)
	}
	return nil
}

// secretPath refuses a path that redaction would change: its key would
// no longer name it.
func secretPath(p string) error {
	if redact.Contains(KeyPrefix + p) {
		return failf("Error: The path %s looks like it contains a secret (a key or token), which cairn does not store; choose another file name.", showPath(p))
	}
	return nil
}

func (t *Tool) create(ctx context.Context, c Command) (string, error) {
	p, err := cleanPath("path", c.Path)
	if err != nil {
		return "", err
	}
	if err := secretPath(p); err != nil {
		return "", err
	}
	fs, err := t.load(ctx)
	if err != nil {
		return "", err
	}
	if _, ok := fs[p]; ok {
		return "", failf("Error: File %s already exists", p)
	}
	if fs.isDir(p) {
		return "", failf("Error: The path %s is a directory; give the path of a file in it, such as %s/notes.md.", p, p)
	}
	if a := fs.fileAncestor(p); a != "" {
		return "", failf("Error: %s is a file, so %s cannot be created inside it.", a, p)
	}
	if err := checkText(c.FileText, "file text"); err != nil {
		return "", err
	}
	key := KeyPrefix + p
	// Created only if new, in one transaction: a file another process
	// created since load is an error, not overwritten.
	res, err := t.svc.CreateMemory(ctx, &cairn.Memory{
		Project:   t.project,
		Type:      FileType,
		Key:       key,
		Title:     p,
		Content:   c.FileText,
		Tags:      []string{FileTag},
		Source:    cairn.SourceExplicit,
		Agent:     t.Agent,
		SessionID: t.SessionID,
	})
	if cairn.ErrorCode(err) == cairn.ECONFLICT {
		return "", failf("Error: File %s already exists", p)
	}
	if err != nil {
		return "", storeErr(err)
	}
	if res.Memory.Key != key { // the store's redaction took part of the path for a secret
		if res.Status == cairn.StatusCreated {
			if err := t.svc.DeleteMemory(ctx, res.Memory.ID); err != nil {
				return "", err
			}
		}
		return "", failf("Error: The path %s looks like it contains a secret (a key or token), which cairn does not store; choose another file name.", showPath(p))
	}
	return "File created successfully at: " + p, nil
}

// file returns the memory of file p, or the error answer for a path that
// is not a file (notFound formats the path).
func (t *Tool) file(ctx context.Context, path, notFound string) (string, *cairn.Memory, error) {
	p, err := cleanPath("path", path)
	if err != nil {
		return "", nil, err
	}
	fs, err := t.load(ctx)
	if err != nil {
		return "", nil, err
	}
	m, ok := fs[p]
	if !ok {
		return "", nil, failf(notFound, p)
	}
	return p, m, nil
}

// write stores text as the content of file p (its memory m). The title
// is given again so that the engine never derives one from the text.
//
// The write applies only while the file still holds what was read (m's
// content); otherwise it returns errChanged and Run edits again.
func (t *Tool) write(ctx context.Context, m *cairn.Memory, p, text string) (*cairn.Memory, error) {
	n, err := t.svc.UpdateMemory(ctx, m.ID, cairn.MemoryUpdate{Content: &text, Title: &p, IfContent: &m.Content})
	if cairn.ErrorCode(err) == cairn.ECONFLICT {
		return nil, fmt.Errorf("%w: %w", errChanged, err)
	}
	if cairn.ErrorCode(err) == cairn.ENOTFOUND {
		return nil, failf("Error: The file %s was deleted while it was being edited; view it again.", p)
	}
	return n, storeErr(err)
}

func (t *Tool) strReplace(ctx context.Context, c Command) (string, error) {
	p, m, err := t.file(ctx, c.Path, "Error: The path %s does not exist. Please provide a valid path.")
	if err != nil {
		return "", err
	}
	if c.OldStr == "" {
		return "", failf("Error: Parameter `old_str` is required and must not be empty; give the exact text to replace.")
	}
	text := m.Content
	var at []int // every match, overlapping ones too
	for i := 0; ; {
		j := strings.Index(text[i:], c.OldStr)
		if j < 0 {
			break
		}
		at = append(at, i+j)
		i += j + 1
		if i > len(text) {
			break
		}
	}
	switch {
	case len(at) == 0:
		return "", failf("No replacement was performed, old_str `%s` did not appear verbatim in %s.", c.OldStr, p)
	case len(at) > 1:
		var nums []string
		for _, pos := range at {
			n := strconv.Itoa(strings.Count(text[:pos], "\n") + 1)
			if len(nums) == 0 || nums[len(nums)-1] != n {
				nums = append(nums, n)
			}
		}
		return "", failf("No replacement was performed. Multiple occurrences of old_str `%s` in lines: %s. Please ensure it is unique", c.OldStr, strings.Join(nums, ", "))
	}
	pos := at[0]
	edited := text[:pos] + c.NewStr + text[pos+len(c.OldStr):]
	if err := checkText(edited, "edited file"); err != nil {
		return "", err
	}
	n, err := t.write(ctx, m, p, edited)
	if err != nil {
		return "", err
	}
	ls := lines(n.Content)
	first := strings.Count(edited[:pos], "\n") + 1
	last := first + strings.Count(c.NewStr, "\n")
	from, to := max(1, first-2), min(len(ls), last+2)
	from = min(from, to)
	return "The memory file has been edited. Here is the snippet showing the change (with line numbers):\n" + numbered(ls, from, to), nil
}

func (t *Tool) insert(ctx context.Context, c Command) (string, error) {
	if c.InsertLine == nil {
		return "", failf("Error: Parameter `insert_line` is required for command: insert (0 inserts before the first line).")
	}
	p, m, err := t.file(ctx, c.Path, "Error: The path %s does not exist")
	if err != nil {
		return "", err
	}
	ls := lines(m.Content)
	at := *c.InsertLine
	if at < 0 || at > len(ls) {
		return "", failf("Error: Invalid `insert_line` parameter: %d. It should be within the range of lines of the file: [0, %d]", at, len(ls))
	}
	add := lines(c.InsertText)
	out := make([]string, 0, len(ls)+len(add))
	out = append(append(append(out, ls[:at]...), add...), ls[at:]...)
	edited := strings.Join(out, "\n")
	if strings.HasSuffix(m.Content, "\n") {
		edited += "\n"
	}
	if err := checkText(edited, "edited file"); err != nil {
		return "", err
	}
	if _, err := t.write(ctx, m, p, edited); err != nil {
		return "", err
	}
	return "The file " + p + " has been edited.", nil
}

func (t *Tool) delete(ctx context.Context, c Command) (string, error) {
	p, err := cleanPath("path", c.Path)
	if err != nil {
		return "", err
	}
	if p == Root {
		return "", failf("Cannot delete the /memories directory itself")
	}
	fs, err := t.load(ctx)
	if err != nil {
		return "", err
	}
	var ids []string
	if m, ok := fs[p]; ok {
		ids = append(ids, m.ID)
	}
	for _, f := range fs.under(p) {
		ids = append(ids, fs[f].ID)
	}
	if len(ids) == 0 {
		return "", failf("Error: The path %s does not exist", p)
	}
	for _, id := range ids {
		if err := t.svc.DeleteMemory(ctx, id); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
			return "", err
		}
	}
	return "Successfully deleted " + p, nil
}

func (t *Tool) rename(ctx context.Context, c Command) (string, error) {
	from, err := cleanPath("old_path", c.OldPath)
	if err != nil {
		return "", err
	}
	to, err := cleanPath("new_path", c.NewPath)
	if err != nil {
		return "", err
	}
	if from == Root {
		return "", failf("Error: The /memories directory itself cannot be renamed; rename the files or directories in it.")
	}
	fs, err := t.load(ctx)
	if err != nil {
		return "", err
	}
	// moves maps each file's memory to its new path.
	type move struct {
		m  *cairn.Memory
		to string
	}
	var moves []move
	if m, ok := fs[from]; ok {
		moves = append(moves, move{m, to})
	} else {
		for _, f := range fs.under(from) {
			moves = append(moves, move{fs[f], to + f[len(from):]})
		}
	}
	if len(moves) == 0 {
		return "", failf("Error: The path %s does not exist", from)
	}
	if _, ok := fs[to]; ok || fs.isDir(to) {
		return "", failf("Error: The destination %s already exists", to)
	}
	if within(to, from) {
		return "", failf("Error: %s cannot be moved inside itself (to %s).", from, to)
	}
	if a := fs.fileAncestor(to); a != "" {
		return "", failf("Error: %s is a file, so %s cannot be created inside it.", a, to)
	}
	for _, mv := range moves {
		if len(mv.to) > MaxPathBytes {
			return "", failf("Error: Renaming %s to %s would make the path %s longer than the limit of %d bytes; choose a shorter name.", from, to, showPath(mv.to), MaxPathBytes)
		}
		if err := secretPath(mv.to); err != nil {
			return "", err
		}
	}
	// The files move one by one; when one cannot, the ones already moved
	// go back, so that a directory is never left half moved.
	var moved []move
	undo := func() error {
		var errs []error
		for _, mv := range moved {
			if _, err := t.svc.UpdateMemory(ctx, mv.m.ID, cairn.MemoryUpdate{Key: &mv.m.Key, Title: &mv.m.Title}); err != nil && cairn.ErrorCode(err) != cairn.ENOTFOUND {
				errs = append(errs, err)
			}
		}
		return errors.Join(errs...)
	}
	fail := func(answer error) (string, error) {
		if err := undo(); err != nil {
			return "", fmt.Errorf("%w; moving the files back: %w", answer, err)
		}
		return "", answer
	}
	for _, mv := range moves {
		key, title := KeyPrefix+mv.to, mv.to
		n, err := t.svc.UpdateMemory(ctx, mv.m.ID, cairn.MemoryUpdate{Key: &key, Title: &title})
		switch {
		case cairn.ErrorCode(err) == cairn.ECONFLICT:
			return fail(failf("Error: The destination %s already exists", mv.to))
		case cairn.ErrorCode(err) == cairn.ENOTFOUND:
			continue // deleted meanwhile
		case err != nil:
			return fail(storeErr(err))
		}
		moved = append(moved, mv)
		if n.Key != key { // the store's redaction took part of the path for a secret
			return fail(failf("Error: The path %s looks like it contains a secret (a key or token), which cairn does not store; choose another file name.", showPath(mv.to)))
		}
	}
	return "Successfully renamed " + from + " to " + to, nil
}
