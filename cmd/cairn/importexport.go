package main

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/jsonlmirror"
	"github.com/cairn-dev/cairn/wire"
)

// countingReader counts the bytes read from r.
type countingReader struct {
	r io.Reader
	n atomic.Int64 // read by the progress bar while the import reads
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n.Add(int64(n))
	return n, err
}

// importProgress draws on w, when it is a terminal (tty), how much of a
// file of size bytes the import has read, until stop is called; nothing
// for an input under 1 MiB.
func importProgress(w io.Writer, tty bool, counted *countingReader, size int64) (stop func()) {
	if !tty || size < 1<<20 {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		for {
			select {
			case <-done:
				fmt.Fprintf(w, "\r%s MB\n", progressBar(int(size>>20), int(size>>20)))
				return
			case <-t.C:
				fmt.Fprintf(w, "\r%s MB", progressBar(int(counted.n.Load()>>20), int(size>>20)))
			}
		}
	}()
	return func() { close(done); <-finished }
}

// maxImportBytes is the most an import reads: 4 GiB of JSON Lines (an
// export document or JSON array, read whole, stops at
// wire.MaxDocumentBytes).
const maxImportBytes = 4 << 30

func runImport(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "import", "[--skip-invalid] [FILE|-]")
	skip := fs.Bool("skip-invalid", false, "import the valid records and report the invalid ones (default: one invalid record aborts the whole import)")
	asJSON := fs.Bool("json", false, "print the report as JSON")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) == 0 && !isTerminal(m.Stdin) {
		pos = []string{"-"} // cairn import < file
	}
	if len(pos) != 1 {
		return usagef("import: give one file, or - for standard input")
	}
	var in io.Reader = m.Stdin
	name := "standard input"
	var size int64
	if pos[0] != "-" {
		f, err := os.Open(pos[0])
		if err != nil {
			return cairn.WrapError(cairn.EINVALID, err, "cannot read %s", pos[0])
		}
		defer f.Close()
		in, name = f, pos[0]
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			size = fi.Size()
		}
	}
	counted := &countingReader{r: newInput(ctx, in, maxImportBytes, name)}
	stop := importProgress(m.Stderr, isTerminal(m.Stderr), counted, size)
	var rep *cairn.ImportReport
	err = m.withService(ctx, g, writeDB, func(svc cairn.App) error {
		if counted.n.Load() > 0 {
			// The socket's server stopped answering after it had read
			// some of the input, which cannot be read again.
			return cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server stopped answering during the import: run the import again (what it may have stored is found unchanged)")
		}
		var err error
		rep, err = svc.ImportStream(ctx, counted, cairn.ImportOptions{Project: g.project, SkipInvalid: *skip})
		return err
	})
	stop()
	if err != nil {
		return err
	}
	if *asJSON {
		return writeJSON(m.Stdout, rep)
	}
	fmt.Fprintf(m.Stdout, "read %d records: %d created, %d updated, %d reinforced, %d unchanged, %d skipped\n",
		rep.Read, rep.Created, rep.Updated, rep.Reinforced, rep.Unchanged, len(rep.Skipped))
	for _, p := range rep.Skipped {
		fmt.Fprintf(m.Stderr, "cairn: skipped line %d: %s\n", p.Line, oneLine(p.Message))
	}
	return nil
}

func runExport(ctx context.Context, m *Main, g *globals, args []string) error {
	fs := newFlags(m, g, "export", "[flags]")
	format := fs.String("format", "json", "json (an export document), jsonl (one memory a line; both read back by import), or item (one memory a line in the camelCase item shape agents browse: id, type, content, source, sourceId, projectPath, createdBy, createdAt)")
	dir := fs.String("jsonl-dir", "", "write one <type>.jsonl file per type into `DIR` instead")
	out := fs.String("o", "", "write to `FILE` instead of standard output")
	var types listFlag
	fs.Var(&types, "type", "only these `types`")
	global := fs.Bool("global", false, "also export global-scope memories of other projects")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if err := checkTypeNames("export", types.vals...); err != nil {
		return err
	}
	if len(pos) > 0 {
		return usagef("export: unexpected argument %q", pos[0])
	}
	if *format != "json" && *format != "jsonl" && *format != "item" {
		return usagef("export: --format must be json, jsonl or item")
	}
	var mems []*cairn.Memory
	var exportedAt time.Time // zero: no database
	err = m.withService(ctx, g, readDB, func(svc cairn.App) error {
		var err error
		mems, _, err = svc.FindMemories(ctx, cairn.MemoryFilter{Project: g.project, IncludeGlobal: *global, Types: types.vals, Sort: cairn.SortCreatedAsc})
		exportedAt = svc.Now()
		return err
	})
	if err != nil && !errIsNoDatabase(err) {
		return err
	}
	projectPath := m.projectFolder(g)
	if *dir != "" {
		write := wire.WriteJSONL
		if *format == "item" {
			write = func(w io.Writer, ms []*cairn.Memory) error { return wire.WriteItems(w, ms, projectPath) }
		}
		return exportDir(m, *dir, mems, write)
	}
	w := m.Stdout
	var f *os.File
	if *out != "" {
		if f, err = os.Create(*out); err != nil {
			return cairn.WrapError(cairn.EINVALID, err, "cannot write %s", *out)
		}
		w = f
	}
	switch *format {
	case "jsonl":
		err = wire.WriteJSONL(w, mems)
	case "item":
		err = wire.WriteItems(w, mems, projectPath)
	default:
		doc := wire.Document{Version: wire.DocumentVersion, Project: g.project, Memories: make([]*wire.Memory, 0, len(mems))}
		doc.ExportedAt = wire.Time(exportedAt)
		for _, mem := range mems {
			doc.Memories = append(doc.Memories, wire.FromMemory(mem))
		}
		bw := bufio.NewWriter(w)
		if err = writeJSON(bw, doc); err == nil {
			err = bw.Flush()
		}
	}
	if f != nil {
		if cerr := f.Close(); err == nil {
			err = cerr
		}
	}
	return err
}

// exportDir writes the per-type JSON Lines files agents browse (as
// jsonlmirror.WriteDir does: each written to a temporary name and
// renamed, so readers never see half a file) and prints each file's path
// and count.
func exportDir(m *Main, dir string, mems []*cairn.Memory, write func(io.Writer, []*cairn.Memory) error) error {
	counts, err := jsonlmirror.WriteDirWith(dir, mems, nil, write)
	types := slices.Sorted(maps.Keys(counts))
	for _, t := range types {
		fmt.Fprintf(m.Stdout, "%s\t%d\n", filepath.Join(dir, t+".jsonl"), counts[t])
	}
	return err
}
