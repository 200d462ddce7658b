package main

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// cmd/cairn is flags, wiring and printing: what to store, when the files
// of a project are rewritten and the runtime of a server are decided by
// the packages behind the surface. This reads the command's own source
// (its test files aside) and fails on what would decide them here again
// (a call of one of their methods, a use of one of their names), and on
// a goroutine or a lock outside the few that only wait on the command's
// own input, output, signals and time limits or guard its memo.
func TestTheCommandHoldsNoApplicationRule(t *testing.T) {
	t.Parallel()
	// By package (pkg.Name) or, for a method, by its name alone.
	forbidden := map[string]string{
		// package conversation: Turn.Extract stores and decides.
		"MarkExtracted": "marks a conversation's messages extracted",
		"Memories":      "extracts a conversation's memories to store them here",
		// package jsonlmirror, local.Project.Finish: the files kept
		// after writes (`cairn export --dir` writes them where asked:
		// that is the command's output).
		"jsonlmirror.Mirror":  "builds the writer of the JSON Lines files",
		"jsonlmirror.Changed": "decides whether the JSON Lines files are behind",
		"SetMirrorFolder":     "registers the JSON Lines folder",
		// package server: the stdio MCP server and its jobs.
		"NewUseWriter":       "runs a use writer",
		"mcp.IOTransport":    "runs the MCP stdio transport",
		"mcp.StdioTransport": "runs the MCP stdio transport",
	}
	// method is why the call of sel is a method the command must not
	// call, or "".
	method := func(sel *ast.SelectorExpr, call *ast.CallExpr) string {
		if sel.Sel.Name == "Memories" && len(call.Args) != 4 {
			return "" // Turn.Memories(ctx, project, session, model) only
		}
		return forbidden[sel.Sel.Name]
	}
	// A goroutine is wiring when it bounds or cancels the command's own
	// work: reading the configuration within a hook's budget, a hook's
	// deadline, a progress bar, a read that Ctrl-C cancels, the signals,
	// the browser it opened.
	goroutines := []string{"loadConfig", "bounded", "importProgress", "readOrCancel", "catchSignals", "openInBrowser"}
	// A lock is wiring when it guards what the command memoises of its
	// own working directory.
	locked := []string{"rootMemo"}
	imports := []string{"github.com/cairn-dev/cairn/jobs"}

	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	checked := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") || name == "pprof.go" {
			continue // pprof.go: a profiling build's listener, not a release's
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		checked++
		for _, imp := range f.Imports {
			if p, _ := strconv.Unquote(imp.Path.Value); slices.Contains(imports, p) {
				t.Errorf("%s imports %s: the jobs are a server's", fset.Position(imp.Pos()), p)
			}
		}
		for _, d := range f.Decls {
			if gd, ok := d.(*ast.GenDecl); ok {
				for _, sp := range gd.Specs {
					ts, ok := sp.(*ast.TypeSpec)
					if !ok || slices.Contains(locked, ts.Name.Name) {
						continue
					}
					ast.Inspect(ts.Type, func(n ast.Node) bool {
						if sel, ok := n.(*ast.SelectorExpr); ok && exprName(sel.X) == "sync" && strings.HasSuffix(sel.Sel.Name, "Mutex") {
							t.Errorf("%s: %s holds a lock: a server's state belongs in its package", fset.Position(sel.Pos()), ts.Name.Name)
						}
						return true
					})
				}
			}
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.CallExpr:
					if sel, ok := n.Fun.(*ast.SelectorExpr); ok {
						if why := method(sel, n); why != "" {
							t.Errorf("%s: %s.%s %s in the command", fset.Position(n.Pos()), exprName(sel.X), sel.Sel.Name, why)
						}
					}
				case *ast.SelectorExpr:
					if why := forbidden[exprName(n.X)+"."+n.Sel.Name]; why != "" {
						t.Errorf("%s: %s.%s %s in the command", fset.Position(n.Pos()), exprName(n.X), n.Sel.Name, why)
					}
				case *ast.GoStmt:
					if !slices.Contains(goroutines, fn.Name.Name) {
						t.Errorf("%s: %s starts a goroutine: a server's runtime belongs in its package", fset.Position(n.Pos()), fn.Name.Name)
					}
				}
				return true
			})
		}
	}
	if checked < 20 {
		t.Fatalf("read %d source files of the command: not its folder?", checked)
	}
}

func exprName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return "…"
}
