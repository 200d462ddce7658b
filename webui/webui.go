// Package webui is cairn's web page: plain HTML, CSS and JavaScript
// modules embedded in the binary (no build step, nothing fetched from the
// network), served by `cairn serve` at /. Everything the page shows and
// does goes through the REST API (package httpapi) and the event stream
// (package eventstream) of the same server, so that the API's host,
// origin and token checks apply to it unchanged.
//
// The page renders memory text with textContent only: a memory holding
// HTML or script stays text. The answers carry a Content-Security-Policy
// that allows scripts, styles and connections from the page's own origin
// only, and no framing.
package webui

import (
	"bytes"
	"compress/gzip"
	"embed"
	"html"
	"io/fs"
	"mime"
	"net/http"
	"net/url"
	"path"
	"strings"
	"sync"
)

//go:embed assets
var assets embed.FS

// Options configure the Handler.
type Options struct {
	// Project is the project the page opens with (serve's own); empty
	// leaves the choice to the user. A server that needs tokens should
	// leave it empty: the page is served without one.
	Project string
}

// CSP is the Content-Security-Policy of every answer.
const CSP = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
	"form-action 'none'; frame-ancestors 'none'; base-uri 'none'"

// asset is one file, as stored and gzipped.
type asset struct {
	typ        string
	raw, gzBuf []byte
}

// Handler serves the page: GET / and GET /ui/NAME for its files. It is
// safe for concurrent use.
type Handler struct {
	opts  Options
	once  sync.Once
	files map[string]*asset // by path below assets/, "index.html" for /
}

// New returns the page's handler.
func New(opts Options) *Handler { return &Handler{opts: opts} }

// load reads and compresses the files once.
func (h *Handler) load() {
	h.files = map[string]*asset{}
	fs.WalkDir(assets, "assets", func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := assets.ReadFile(p)
		if err != nil {
			return err
		}
		name := strings.TrimPrefix(p, "assets/")
		if name == "index.html" {
			b = bytes.Replace(b, []byte("{{project}}"), []byte(html.EscapeString(h.opts.Project)), 1)
			b = bytes.Replace(b, []byte("{{preload}}"), []byte(preload(h.opts.Project)), 1)
		}
		typ := mime.TypeByExtension(path.Ext(name))
		if path.Ext(name) == ".js" {
			typ = "text/javascript; charset=utf-8"
		}
		h.files[name] = &asset{typ: typ, raw: b, gzBuf: gzipped(b)}
		return nil
	})
}

// FirstPage is the request of the first page of a project's memories,
// as the page makes it when it opens (app.js: the newest 50, of the
// project only, one more to know whether a next page exists, and no
// count).
func FirstPage(project string) string {
	return "/api/projects/" + url.PathEscape(project) + "/memories?sort=created&global=false&limit=51&offset=0&skip_total=true"
}

// preload is the link that fetches the first page of project's
// memories while the page's scripts load ("" without a project). The
// script asks for the link's exact address, so the browser answers it
// from the preload.
func preload(project string) string {
	if project == "" {
		return ""
	}
	return `<link rel="preload" as="fetch" crossorigin="anonymous" id="first-page" href="` + html.EscapeString(FirstPage(project)) + `">`
}

func gzipped(b []byte) []byte {
	var buf bytes.Buffer
	zw, _ := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	zw.Write(b)
	zw.Close()
	return buf.Bytes()
}

// Sizes returns the total size of the page's files, as stored and as
// sent gzipped.
func (h *Handler) Sizes() (raw, compressed int) {
	h.once.Do(h.load)
	for _, a := range h.files {
		raw += len(a.raw)
		compressed += len(a.gzBuf)
	}
	return raw, compressed
}

func (h *Handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h.once.Do(h.load)
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		w.Header().Set("Allow", "GET, HEAD")
		http.Error(w, "method not allowed", http.StatusMethodNotAllowed)
		return
	}
	name := ""
	switch {
	case r.URL.Path == "/":
		name = "index.html"
	case strings.HasPrefix(r.URL.Path, "/ui/"):
		name = strings.TrimPrefix(r.URL.Path, "/ui/")
		if name == "index.html" {
			name = ""
		}
	}
	a := h.files[name]
	if a == nil {
		http.Error(w, "not found: the page is at /", http.StatusNotFound)
		return
	}
	hd := w.Header()
	hd.Set("Content-Type", a.typ)
	hd.Set("Content-Security-Policy", CSP)
	hd.Set("X-Content-Type-Options", "nosniff")
	hd.Set("Referrer-Policy", "no-referrer")
	hd.Set("Cache-Control", "no-cache")
	hd.Add("Vary", "Accept-Encoding")
	body := a.raw
	if acceptsGzip(r) {
		hd.Set("Content-Encoding", "gzip")
		body = a.gzBuf
	}
	w.WriteHeader(http.StatusOK)
	if r.Method == http.MethodGet {
		w.Write(body)
	}
}

func acceptsGzip(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept-Encoding"), ",") {
		enc, q, _ := strings.Cut(strings.TrimSpace(part), ";")
		if strings.EqualFold(strings.TrimSpace(enc), "gzip") && strings.ReplaceAll(q, " ", "") != "q=0" {
			return true
		}
	}
	return false
}
