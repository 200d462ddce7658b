// Package httpapi is cairn's REST API: JSON over HTTP on the memory
// service, every route scoped to the project named in its path
// (/api/projects/{project}/...), described by the OpenAPI 3.1 document it
// serves at /api/openapi.json.
//
// JSON in and out uses package wire's objects (the field names of the
// export format). cairn's error codes map to HTTP statuses in one table
// (statusOf); an error's body is {"error": {"code", "message"}}, and an
// internal error's message never carries its cause, which is logged once.
//
// Access: a request to a loopback address must name a loopback host (DNS
// rebinding is refused with 403). A server that RequireToken needs
// "Authorization: Bearer TOKEN" on every project route; on any server, a
// request that sends a token must send a valid one. A token opens one
// project (another project's routes answer 403) and, when read-only, the
// routes that change nothing (403 otherwise); the uses a read-only token
// sends, or its contexts show, are not recorded. Tokens and request
// headers are never logged.
//
// A Server is safe for concurrent use.
package httpapi

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Service is what the API calls, bound to one project: cairn's surface
// as the process that holds the memories implements it (local.Project),
// with imports read as the server reads a body.
type Service interface {
	cairn.App
	cairn.ImportService
}

// Authenticator finds the token of a secret: EUNAUTHORIZED when none has
// it. engine.Engine implements it.
type Authenticator interface {
	Authenticate(ctx context.Context, secret string) (*cairn.Token, error)
}

// Options configure a Server.
type Options struct {
	// Service returns the service bound to project, its clock at now
	// (a request's Cairn-Now header; zero: the server's clock); required.
	// Its context blocks and lookups record the use of what they show as
	// the server does (a long-running server batches those writes), and
	// its blocks mark stale memories against the project's folder.
	// Service("", now) is the service of every project, through which
	// GET /api/projects lists them when the request sends no token.
	Service func(project string, now time.Time) Service
	// Root returns the folder of a project's files, "" when the server
	// does not know it: the list of memories then marks and filters the
	// possibly stale ones (package filestale). nil knows no folder.
	Root func(project string) string
	// CheckSettings checks the settings a client stores (PUT /settings)
	// as a configuration file's are checked; nil refuses to store any.
	CheckSettings func(*cairn.Settings) error
	// SettingsStored, when set, is told of the settings a client stored
	// for project (a server registers the folder of its JSON Lines files).
	SettingsStored func(ctx context.Context, project string, ps *cairn.ProjectSettings)
	// Tokens checks the tokens requests send; nil refuses every token.
	Tokens Authenticator
	// ManageTokens serves the token routes (/api/tokens), through
	// Service("", zero time): set it only on a listener that the
	// database's owner alone can reach (a server's Unix socket). Without
	// it they answer 403, so that no token holder mints tokens.
	ManageTokens bool
	// RequireToken makes a token necessary on every project route (a
	// server reachable from other machines).
	RequireToken bool
	// Authenticated, when set, is called for each request that sent a
	// valid token, before it is answered (a server trusts the connection
	// it came on: package server).
	Authenticated func(r *http.Request, tok *cairn.Token)
	// Logger receives internal errors; nil discards them.
	Logger *slog.Logger
}

// Limits of request bodies.
const (
	// MaxJSONBytes bounds a JSON request body: a memory's content is at
	// most cairn.MaxContentBytes (64 KiB), which JSON escaping can make
	// up to six times longer.
	MaxJSONBytes = 512 << 10
	// MaxCaptureBytes bounds the agent output a capture reads, as
	// `cairn capture` does.
	MaxCaptureBytes = 16 << 20
	// MaxImportBytes bounds an import body, as `cairn import` does; an
	// export document within it is also bounded by wire.MaxDocumentBytes.
	MaxImportBytes = 4 << 30
)

// Server answers the API. Mount it at /api/ (its routes hold the whole
// path).
type Server struct {
	opts Options
	mux  *http.ServeMux
	log  *slog.Logger
}

// New returns the API server of opts.
func New(opts Options) *Server {
	s := &Server{opts: opts, mux: http.NewServeMux(), log: opts.Logger}
	if s.log == nil {
		s.log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	s.routes()
	return s
}

// access is what a route may do: read only, or change memories.
type access bool

const (
	read  access = false
	write access = true
)

// handlerFunc is a route's handler: it writes its answer, or returns the
// error to answer with.
type handlerFunc func(w http.ResponseWriter, r *http.Request, p *project) error

// project is a request's project and its service.
type project struct {
	name  string
	now   time.Time    // the request's clock (Cairn-Now); zero: the server's
	token *cairn.Token // the token the request sent; nil: none
	svc   Service
}

// NowHeader is the request header that sets the clock of one request
// (RFC 3339), as the CLI's --now does for a command: recency, expiry and
// the times of what it writes. A server that RequireToken (one other
// machines reach) takes it for reads only: a change sent with it is
// refused (400), so that no client can date what it writes, or the use
// it records, out of reach of decay and expiry. The use a context
// records is dated by the server's clock wherever it is asked.
const NowHeader = wire.NowHeader

// requestNow is the time of the request's NowHeader; zero when it sends
// none.
func requestNow(r *http.Request) (time.Time, error) {
	v := r.Header.Get(NowHeader)
	if v == "" {
		return time.Time{}, nil
	}
	t, err := wire.ParseTime(v)
	if err != nil {
		return time.Time{}, cairn.Errorf(cairn.EINVALID, "the %s header: %v", NowHeader, err)
	}
	return t, nil
}

// checkClock refuses the request's clock for a change on a server that
// RequireToken (NowHeader).
func (s *Server) checkClock(p *project) error {
	if !p.now.IsZero() && s.opts.RequireToken {
		return cairn.Errorf(cairn.EINVALID, "the %s header is not taken for a change on a server other machines reach: what is written is dated by the server's clock; send the request without it", NowHeader)
	}
	return nil
}

func (s *Server) routes() {
	s.mux.HandleFunc("GET /api/openapi.json", serveOpenAPI)
	s.route("GET /memories", read, s.listMemories)
	s.route("POST /memories", write, s.addMemory)
	s.route("GET /memories/{id}", read, s.getMemory)
	s.route("PATCH /memories/{id}", write, s.updateMemory)
	s.route("DELETE /memories/{id}", write, s.deleteMemory)
	s.route("POST /memories/{id}/pin", write, s.pin(true))
	s.route("POST /memories/{id}/unpin", write, s.pin(false))
	s.route("POST /memories/{id}/verify", write, s.verify)
	s.route("POST /memories/{id}/promote", write, s.promote)
	s.route("POST /memories/{id}/supersede", write, s.supersede)
	s.route("GET /memories/{id}/chain", read, s.chain)
	s.route("GET /types/near", read, s.nearType)
	s.route("GET /settings", read, s.getSettings)
	s.route("PUT /settings", write, s.putSettings)
	s.route("DELETE /settings", write, s.deleteSettings)
	s.route("GET /search", read, s.search)
	s.route("GET /search/terms", read, s.searchTerms)
	// Seed 000's paths, beside the ones above: search and cleanup under
	// /memories, and a memory by its id alone (its id decides the
	// project).
	s.route("GET /memories/search", read, s.search)
	s.route("POST /memories/cleanup", write, s.cleanup)
	s.byID("GET", read, s.getMemory)
	s.byID("PUT", write, s.updateMemory)
	s.byID("DELETE", write, s.deleteMemory)
	// A context records the use of what it shows, which raises the
	// confidence of what it shows: a read-only token may ask for one,
	// but its use is not recorded (a preview, as dry_run).
	s.route("POST /context", read, s.context)
	s.route("POST /lookup", read, s.lookup)
	s.route("POST /capture", write, s.capture)
	s.route("POST /tasks/events", write, s.taskEvent)
	s.route("POST /import", write, s.importMemories)
	s.route("GET /export", read, s.export)
	s.route("GET /ingest/cursor", read, s.findIngestCursor)
	s.route("PUT /ingest/cursor", write, s.putIngestCursor)
	s.route("POST /ingest", write, s.ingestBatch)
	// A use raises the confidence of what was used: a read-only token's
	// are not recorded (a preview's, as its contexts).
	s.route("POST /uses", read, s.recordUses)
	s.mux.HandleFunc("GET /api/projects", s.projects)
	s.route("GET /stats", read, s.stats)
	s.route("GET /stats/created", read, s.created)
	s.route("GET /conflicts", read, s.conflicts)
	// Seed 002's recall records the use of what it shows: a read-only
	// token's is a preview, not recorded.
	s.route("POST /recall", read, s.recallByValue)
	s.tokenRoute("GET /api/tokens", s.listTokens)
	s.tokenRoute("POST /api/tokens", s.createToken)
	s.tokenRoute("DELETE /api/tokens/{id}", s.revokeToken)
	s.route("GET /activity", read, s.activity)
	s.route("POST /cleanup", write, s.cleanup)
	s.route("POST /loop/iterations", write, s.loopRecord)
	s.route("POST /loop/context", read, s.loopContext)
	s.route("GET /loop/model", read, s.loopModel)
	s.route("GET /loop/status", read, s.loopStatus)
	s.route("POST /loop/prune", write, s.loopPrune)
	s.mux.HandleFunc("/api/", func(w http.ResponseWriter, r *http.Request) {
		// Package client reads "no route " as a server without the route
		// (an older version): keep the prefix.
		s.fail(w, r, cairn.Errorf(cairn.ENOTFOUND, "no route %s %s; GET /api/openapi.json lists them", r.Method, r.URL.Path))
	})
}

// route registers h at METHOD /api/projects/{project}PATH.
func (s *Server) route(pattern string, a access, h handlerFunc) {
	method, path, _ := strings.Cut(pattern, " ")
	s.mux.Handle(method+" /api/projects/{project}"+path, s.guard(a, func(w http.ResponseWriter, r *http.Request) {
		p := &project{name: r.PathValue("project"), token: tokenOf(r.Context())}
		now, err := requestNow(r)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		p.now = now
		if a == write {
			if err := s.checkClock(p); err != nil {
				s.fail(w, r, err)
				return
			}
		}
		p.svc = s.opts.Service(p.name, now)
		if err := h(w, r, p); err != nil {
			s.fail(w, r, err)
		}
	}))
}

// byID registers h at METHOD /api/memories/{id}, seed 000's path of a
// memory without its project: the memory's project is the project of
// the request's token when it sends one (the id is looked up there, and
// among the global memories it may read, so that a token never reaches
// another project's memory: 404), else the memory's own. The token
// checks of the project routes apply.
func (s *Server) byID(method string, a access, h handlerFunc) {
	s.mux.HandleFunc(method+" /api/memories/{id}", func(w http.ResponseWriter, r *http.Request) {
		if err := s.answerByID(w, r, a, h); err != nil {
			s.fail(w, r, err)
		}
	})
}

func (s *Server) answerByID(w http.ResponseWriter, r *http.Request, a access, h handlerFunc) error {
	now, err := requestNow(r)
	if err != nil {
		return err
	}
	tok, err := s.token(r)
	if err != nil {
		return err
	}
	p := &project{now: now, token: tok}
	if tok != nil {
		if s.opts.Authenticated != nil {
			s.opts.Authenticated(r, tok)
		}
		if a == write && tok.ReadOnly {
			return cairn.Errorf(cairn.EFORBIDDEN, "the token %s is read-only", tok.ID)
		}
		p.name = tok.Project
		r = withToken(r, tok)
	} else {
		// No token: every project is open (a server that needs none);
		// the memory says whose it is.
		id := strings.TrimSpace(r.PathValue("id"))
		if id == "" {
			return cairn.Errorf(cairn.EINVALID, "the id is empty")
		}
		m, err := s.opts.Service("", now).FindMemoryByID(r.Context(), id)
		if err != nil {
			return err
		}
		p.name = m.Project
	}
	if a == write {
		if err := s.checkClock(p); err != nil {
			return err
		}
	}
	p.svc = s.opts.Service(p.name, now)
	return h(w, r, p)
}

// Handle registers h for pattern (a http.ServeMux pattern, such as
// "GET /api/projects/{project}/events"). A pattern with {project} gets
// the token checks of the other project routes: GET and HEAD are reads,
// other methods writes. Call it before the server answers requests.
func (s *Server) Handle(pattern string, h http.Handler) {
	if !strings.Contains(pattern, "{project}") {
		s.mux.Handle(pattern, h)
		return
	}
	s.mux.Handle(pattern, s.guard(access(!isSafe(pattern)), h.ServeHTTP))
}

func isSafe(pattern string) bool {
	method, _, ok := strings.Cut(pattern, " ")
	return ok && (method == http.MethodGet || method == http.MethodHead)
}

// ServeHTTP answers a request, refusing one that reached a loopback
// address under another host's name (DNS rebinding), and one whose path
// or query is not valid UTF-8 (as the CLI refuses such arguments).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := checkHost(r); err != nil {
		s.fail(w, r, err)
		return
	}
	if err := checkURL(r); err != nil {
		s.fail(w, r, err)
		return
	}
	s.mux.ServeHTTP(w, r)
}

// checkHost refuses a request that reached a loopback address under
// another host's name (DNS rebinding): EFORBIDDEN.
func checkHost(r *http.Request) error {
	if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
		if isLoopback(local.String()) && !isLoopback(r.Host) {
			return cairn.Errorf(cairn.EFORBIDDEN, "the Host header %q is not this machine's loopback address; use 127.0.0.1 or localhost", r.Host)
		}
	}
	return nil
}

// checkURL refuses a path or query parameter that is not valid UTF-8 once
// unescaped: EINVALID.
func checkURL(r *http.Request) error {
	if !utf8.ValidString(r.URL.Path) {
		return cairn.Errorf(cairn.EINVALID, "the path is not valid UTF-8; give text in UTF-8")
	}
	if r.URL.RawQuery == "" {
		return nil
	}
	for name, vs := range r.URL.Query() {
		for _, v := range vs {
			if !utf8.ValidString(name) || !utf8.ValidString(v) {
				return cairn.Errorf(cairn.EINVALID, "query parameter %s is not valid UTF-8; give text in UTF-8", strings.ToValidUTF8(name, "?"))
			}
		}
	}
	return nil
}

// isLoopback reports whether addr (host or host:port) is localhost or a
// loopback IP.
func isLoopback(addr string) bool {
	host, _, err := net.SplitHostPort(addr)
	if err != nil {
		host = strings.Trim(addr, "[]")
	}
	if host == "localhost" {
		return true
	}
	ip, err := netip.ParseAddr(host)
	return err == nil && ip.IsLoopback()
}

// guard checks the project name and the request's token before h, which
// finds the token in its request's context (tokenOf).
func (s *Server) guard(a access, h http.HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := r.PathValue("project")
		if !cairn.ValidProject(name) {
			s.fail(w, r, cairn.Errorf(cairn.EINVALID, "project %q is not valid: give 1 to %d bytes of text without control characters", name, cairn.MaxNameBytes))
			return
		}
		tok, err := s.authorize(r, name, a)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h(w, withToken(r, tok))
	})
}

// authorize checks the token of a request for project: one is needed
// when the server requires tokens, and one that is sent must be valid,
// for project, and not read-only for a write. It returns the token, nil
// when none was sent.
func (s *Server) authorize(r *http.Request, name string, a access) (*cairn.Token, error) {
	tok, err := s.token(r)
	if err != nil || tok == nil {
		return nil, err
	}
	if s.opts.Authenticated != nil {
		s.opts.Authenticated(r, tok)
	}
	if tok.Project != name {
		return nil, cairn.Errorf(cairn.EFORBIDDEN, "the token %s is for project %s, not %s", tok.ID, tok.Project, name)
	}
	if a == write && tok.ReadOnly {
		return nil, cairn.Errorf(cairn.EFORBIDDEN, "the token %s is read-only", tok.ID)
	}
	return tok, nil
}

// tokenKey is the request context's key of the token it sent.
type tokenKey struct{}

// withToken is r with tok in its context; r itself when tok is nil.
func withToken(r *http.Request, tok *cairn.Token) *http.Request {
	if tok == nil {
		return r
	}
	return r.WithContext(context.WithValue(r.Context(), tokenKey{}, tok))
}

// tokenOf is the token a request sent, as its guard checked it; nil
// when it sent none.
func tokenOf(ctx context.Context) *cairn.Token {
	tok, _ := ctx.Value(tokenKey{}).(*cairn.Token)
	return tok
}

// TokenOf is the token that a request to a handler wrapped by Guard
// sent, as Guard checked it; nil when it sent none.
func TokenOf(r *http.Request) *cairn.Token { return tokenOf(r.Context()) }

// token returns the token a request sends: nil when it sends none and
// the server needs none, EUNAUTHORIZED when it sends an invalid one or
// none to a server that needs one.
func (s *Server) token(r *http.Request) (*cairn.Token, error) {
	header := r.Header.Get("Authorization")
	if header == "" {
		if s.opts.RequireToken {
			return nil, cairn.Errorf(cairn.EUNAUTHORIZED, "this server needs a token: send Authorization: Bearer TOKEN (cairn token create)")
		}
		return nil, nil
	}
	scheme, secret, ok := strings.Cut(header, " ")
	secret = strings.TrimSpace(secret)
	if !ok || !strings.EqualFold(scheme, "Bearer") || secret == "" {
		return nil, cairn.Errorf(cairn.EUNAUTHORIZED, "the Authorization header must be Bearer TOKEN")
	}
	if s.opts.Tokens == nil {
		return nil, cairn.Errorf(cairn.EUNAUTHORIZED, "the token is not valid (unknown or revoked)")
	}
	return s.opts.Tokens.Authenticate(r.Context(), secret)
}

// statuses is the one table from cairn's error codes to HTTP statuses.
var statuses = map[string]int{
	cairn.EINVALID:      http.StatusBadRequest,
	cairn.ENOTFOUND:     http.StatusNotFound,
	cairn.ECONFLICT:     http.StatusConflict,
	cairn.EUNAUTHORIZED: http.StatusUnauthorized,
	cairn.EFORBIDDEN:    http.StatusForbidden,
	cairn.EUNAVAILABLE:  http.StatusServiceUnavailable,
	cairn.EINTERNAL:     http.StatusInternalServerError,
}

// statusOf is the HTTP status of err: by its code, 413 for a body over
// its limit.
func statusOf(err error) int {
	var mbe *http.MaxBytesError
	if errors.As(err, &mbe) {
		return http.StatusRequestEntityTooLarge
	}
	if st, ok := statuses[cairn.ErrorCode(err)]; ok {
		return st
	}
	return http.StatusInternalServerError
}

// errorBody is the JSON of an error answer.
type errorBody struct {
	Error struct {
		Code    string `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func errorOf(code, msg string) errorBody {
	var b errorBody
	b.Error.Code, b.Error.Message = code, msg
	return b
}

// clientGone reports whether err, a request's failure, comes of its
// client leaving: the request's context is done, or the connection broke.
func clientGone(r *http.Request, err error) bool {
	return r.Context().Err() != nil || errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET)
}

// statusClientClosed is the status of a request its client cancelled
// (nginx's 499): it is not the server's failure, and the client, gone,
// does not read it.
const statusClientClosed = 499

// fail answers with err. Internal errors are logged (method and path,
// never headers) and answered without their cause.
func (s *Server) fail(w http.ResponseWriter, r *http.Request, err error) {
	if clientGone(r, err) {
		// The client went away (or the server is closing): what failed
		// was cut short, not broken, and nobody reads the answer.
		writeJSON(w, statusClientClosed, errorOf(cairn.EUNAVAILABLE, "the request was cancelled before it was answered (the client closed it)"))
		return
	}
	st := statusOf(err)
	var body errorBody
	body.Error.Code = cairn.ErrorCode(err)
	body.Error.Message = strings.Join(strings.Fields(cairn.ErrorMessage(err)), " ")
	var mbe *http.MaxBytesError
	switch {
	case errors.As(err, &mbe):
		body.Error.Code = cairn.EINVALID
		body.Error.Message = "the request body is larger than " + byteSize(mbe.Limit) + ", the most this route reads"
	case st == http.StatusInternalServerError:
		s.log.Error("request failed", "method", r.Method, "path", r.URL.Path, "err", err)
		body.Error.Code = cairn.EINTERNAL
		body.Error.Message = "internal error: the request could not be completed; the server's log has the details"
	}
	if st == http.StatusUnauthorized {
		w.Header().Set("WWW-Authenticate", `Bearer realm="cairn"`)
	}
	writeJSON(w, st, body)
}

func byteSize(n int64) string {
	switch {
	case n >= 1<<30 && n%(1<<30) == 0:
		return itoa(n>>30) + " GiB"
	case n >= 1<<20 && n%(1<<20) == 0:
		return itoa(n>>20) + " MiB"
	case n >= 1<<10 && n%(1<<10) == 0:
		return itoa(n>>10) + " KiB"
	}
	return itoa(n) + " bytes"
}

func itoa(n int64) string { return strconv.FormatInt(n, 10) }

// encodeBuffers are the buffers answers are encoded in, reused.
var encodeBuffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// maxPooledBuffer: a buffer that grew beyond this (an export page, say)
// is left to the collector rather than kept.
const maxPooledBuffer = 1 << 20

// writeJSON answers v as JSON with status st, with its length, in one
// write.
func writeJSON(w http.ResponseWriter, st int, v any) {
	buf := encodeBuffers.Get().(*bytes.Buffer)
	defer putBuffer(buf)
	if err := json.NewEncoder(buf).Encode(v); err != nil { // Encode ends the value with a newline
		st = http.StatusInternalServerError
		buf.Reset()
		buf.WriteString(`{"error":{"code":"internal","message":"internal error: the answer could not be encoded"}}` + "\n")
	}
	writeBody(w, st, buf.Bytes())
}

// writeBody answers data, a JSON document, with status st, with its
// length, in one write.
func writeBody(w http.ResponseWriter, st int, data []byte) {
	h := w.Header()
	h.Set("Content-Type", "application/json")
	h.Set("Content-Length", strconv.Itoa(len(data)))
	w.WriteHeader(st)
	w.Write(data)
}

// putBuffer returns buf to encodeBuffers, unless it grew too large.
func putBuffer(buf *bytes.Buffer) {
	if buf.Cap() <= maxPooledBuffer {
		buf.Reset()
		encodeBuffers.Put(buf)
	}
}

// readJSON decodes the request's body, of at most limit bytes, into v.
// Unknown fields, trailing data, an empty body and a body that is not
// valid UTF-8 are EINVALID (encoding/json would replace bad bytes with
// U+FFFD, storing what the client did not send).
func readJSON(w http.ResponseWriter, r *http.Request, limit int64, v any) error {
	body, err := ReadBody(w, r, limit)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		if errors.Is(err, io.EOF) {
			return cairn.Errorf(cairn.EINVALID, "the request body is empty; send a JSON object")
		}
		return cairn.Errorf(cairn.EINVALID, "the request body is not the JSON this route takes: %s", strings.TrimPrefix(err.Error(), "json: "))
	}
	if dec.More() {
		return cairn.Errorf(cairn.EINVALID, "the request body holds more than one JSON value")
	}
	return nil
}

// ReadBody reads r's body, of at most limit bytes. A longer body gives the
// *http.MaxBytesError (which the error responses turn into 413); a body
// that cannot be read or is not valid UTF-8 is EINVALID (JSON decoding
// would replace bad bytes with U+FFFD, storing what the client did not
// send).
func ReadBody(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, error) {
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			return nil, err
		}
		return nil, cairn.WrapError(cairn.EINVALID, err, "the request body could not be read")
	}
	if !utf8.Valid(body) {
		return nil, errNotUTF8
	}
	return body, nil
}

// errNotUTF8 refuses a body that is not valid UTF-8.
var errNotUTF8 = cairn.Errorf(cairn.EINVALID, "the request body is not valid UTF-8; send JSON in UTF-8")

// Guard wraps h, a handler outside the API (MCP over HTTP, say), in the
// API's host and token checks for the project that project(r) names.
// Every request counts as a write: a read-only token is refused. h finds
// the token the request sent with TokenOf.
func (s *Server) Guard(project func(*http.Request) string, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := checkHost(r); err != nil {
			s.fail(w, r, err)
			return
		}
		tok, err := s.authorize(r, project(r), write)
		if err != nil {
			s.fail(w, r, err)
			return
		}
		h.ServeHTTP(w, withToken(r, tok))
	})
}

// Fail answers err as the API answers its errors: the status of its code
// and {"error": {"code", "message"}}; an internal error is logged and
// answered without its cause. For handlers outside the API.
func (s *Server) Fail(w http.ResponseWriter, r *http.Request, err error) { s.fail(w, r, err) }
