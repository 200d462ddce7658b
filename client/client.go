// Package client is a Go client of cairn's REST API (package httpapi): a
// Project implements the same service as a local engine bound to a
// project, over HTTP or over the Unix socket next to a database that
// `cairn serve` answers on, so that a program (the cairn CLI among them)
// holds one interface and does not care which it got.
//
// Errors keep cairn's codes: an error answer of the server comes back as
// a cairn error with the server's code and message (cairn.ErrorCode), a
// server that cannot be reached or answers what is not cairn's API as
// EUNAVAILABLE. A Client and its Projects are safe for concurrent use.
package client

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"syscall"
	"time"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/wire"
)

// Options configure a Client; nil means the defaults.
type Options struct {
	// Token is sent as "Authorization: Bearer TOKEN" (a server on a
	// non-loopback address needs one; cairn token create).
	Token string
	// Timeout bounds each request, connection included; 0 means
	// DefaultTimeout.
	Timeout time.Duration
}

// DefaultTimeout bounds a request when Options.Timeout is 0: a server that
// does not answer in time (hung, stopped in a debugger) must not stall an
// agent's prompt.
const DefaultTimeout = 30 * time.Second

// Client talks to one cairn server.
type Client struct {
	base    string // scheme://host, without a trailing slash
	hc      *http.Client
	patient *http.Client // hc without its timeout, for bulk requests
	token   string
	timeout time.Duration
}

// New returns a client of the server at target: an http:// or https://
// URL (a path after the host is kept as the API's prefix), or unix:PATH
// for the Unix socket of `cairn serve` (PATH is the socket, the database
// file's path with ".sock" added). Nothing is sent yet. EINVALID for a
// target of another form.
func New(target string, opts *Options) (*Client, error) {
	if opts == nil {
		opts = &Options{}
	}
	c := &Client{token: opts.Token, timeout: opts.Timeout}
	if c.timeout <= 0 {
		c.timeout = DefaultTimeout
	}
	if path, ok := strings.CutPrefix(target, "unix:"); ok {
		if path == "" {
			return nil, cairn.Errorf(cairn.EINVALID, "the server %q names no socket: give unix:PATH", target)
		}
		c.base = "http://localhost"
		c.hc = &http.Client{Transport: &unixTransport{path: path, timeout: c.timeout}}
		c.patient = c.hc // the transport waits as long as the request's context says
		return c, nil
	}
	u, err := url.Parse(target)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return nil, cairn.Errorf(cairn.EINVALID, "the server %q is not an http:// or https:// URL, or unix:PATH", target)
	}
	c.base = strings.TrimSuffix(u.Scheme+"://"+u.Host+u.Path, "/")
	c.hc = &http.Client{Timeout: c.timeout}
	c.patient = &http.Client{}
	return c, nil
}

// Project returns the service of project on the server: ids are looked up
// in that project (and among global-scope memories) only.
func (c *Client) Project(name string) *Project {
	return &Project{c: c, name: name}
}

// Project is cairn's surface (cairn.App) of one project on a server: each
// method is a request to the REST API, answered there by the server's
// own surface (package local).
type Project struct {
	c    *Client
	name string
	now  time.Time
	bulk bool // wait for answers as long as the context lets (patient)
}

var _ cairn.App = (*Project)(nil)

// At returns the project's service at the clock now (recency, expiry, the
// times of what it writes), as the CLI's --now; zero is the server's
// clock.
func (p *Project) At(now time.Time) *Project {
	q := *p
	q.now = now
	return &q
}

// patient returns p whose requests wait for the answer as long as their
// context lets them, not the client's timeout: for bulk work.
func (p *Project) patient() *Project {
	q := *p
	q.bulk = true
	return &q
}

// patientKey marks the context of a patient request for unixTransport.
type patientKey struct{}

// Name is the project's name.
func (p *Project) Name() string { return p.name }

// path is the URL of a route of the project.
func (p *Project) path(route string) string {
	return p.c.base + "/api/projects/" + url.PathEscape(p.name) + route
}

// do sends a request with body (JSON-encoded when not nil and not an
// io.Reader) and decodes a JSON answer into out (when not nil). An error
// answer becomes a cairn error with the server's code.
func (p *Project) do(ctx context.Context, method, target string, body, out any) error {
	return p.doHeader(ctx, method, target, body, out, nil)
}

// doHeader is do, and copies the answer's headers to hdr when it is not
// nil.
func (p *Project) doHeader(ctx context.Context, method, target string, body, out any, hdr *http.Header) error {
	var rd io.Reader
	ctype := ""
	switch b := body.(type) {
	case nil:
	case io.Reader:
		rd, ctype = b, "application/x-ndjson"
	default:
		data, err := json.Marshal(b)
		if err != nil {
			return cairn.WrapError(cairn.EINTERNAL, err, "encoding the request")
		}
		rd, ctype = bytes.NewReader(data), "application/json"
	}
	hc := p.c.hc
	if p.bulk {
		hc = p.c.patient
		ctx = context.WithValue(ctx, patientKey{}, true)
	}
	req, err := http.NewRequestWithContext(ctx, method, target, rd)
	if err != nil {
		return cairn.WrapError(cairn.EINVALID, err, "building the request")
	}
	if ctype != "" {
		req.Header.Set("Content-Type", ctype)
	}
	if p.c.token != "" {
		req.Header.Set("Authorization", "Bearer "+p.c.token)
	}
	if !p.now.IsZero() {
		req.Header.Set(wire.NowHeader, wire.FormatTime(p.now))
	}
	resp, err := hc.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "the cairn server does not answer")
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		return errorOf(resp)
	}
	if hdr != nil {
		*hdr = resp.Header
	}
	if out == nil {
		io.Copy(io.Discard, resp.Body)
		return nil
	}
	if w, ok := out.(io.Writer); ok {
		if _, err := io.Copy(w, resp.Body); err != nil {
			return cairn.WrapError(cairn.EUNAVAILABLE, err, "the server's answer was cut short")
		}
		return nil
	}
	// Read whole first: an answer cut short may hold a complete JSON
	// value, but not the one the server sent.
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "the server's answer was cut short")
	}
	if err := json.Unmarshal(data, out); err != nil {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "the server's answer is not the JSON of cairn's API")
	}
	return nil
}

// errorOf reads an error answer: {"error": {"code", "message"}}.
func errorOf(resp *http.Response) error {
	var body struct {
		Error struct {
			Code    string `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	data, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if json.Unmarshal(data, &body) != nil || body.Error.Code == "" {
		return cairn.Errorf(cairn.EUNAVAILABLE, "the server answered %s, not as cairn's API does", resp.Status)
	}
	if resp.StatusCode == http.StatusNotFound && strings.HasPrefix(body.Error.Message, "no route ") {
		// The server has no such route (httpapi's answer to a path it does
		// not know): an older version, started before this one was
		// installed. It does not offer what is asked.
		return cairn.Errorf(cairn.EUNAVAILABLE, "the cairn server does not offer this (%s): is it an older version?", body.Error.Message)
	}
	return cairn.Errorf(body.Error.Code, "%s", body.Error.Message)
}

// unixTransport sends each request on a new connection to a Unix socket,
// made with plain system calls: the net package would set up more than
// one exchange needs, which costs a short-lived process (a CLI command, a
// hook) more than the whole exchange. The connection is non-blocking and
// its reads and writes wait in the runtime's poller, so that while the
// server works the process is idle: a read blocked in the kernel keeps
// the runtime's monitor thread waking every 20 µs, taking CPU from the
// server on a busy machine.
type unixTransport struct {
	path    string
	timeout time.Duration
}

func (t *unixTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	f, err := dialUnix(t.path, t.timeout)
	if err != nil {
		if req.Body != nil {
			req.Body.Close()
		}
		return nil, err
	}
	if deadline, ok := req.Context().Deadline(); ok {
		f.SetDeadline(deadline)
	} else if req.Context().Value(patientKey{}) != nil {
		f.SetDeadline(time.Time{}) // the request's context ends it
	}
	req.Close = true // one request a connection
	if req.Context().Value(patientKey{}) != nil {
		return t.roundTripStreamed(req, f)
	}
	bw := bufio.NewWriter(f)
	if err := req.Write(bw); err != nil {
		f.Close()
		return nil, err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return nil, err
	}
	resp, err := http.ReadResponse(bufio.NewReader(f), req)
	if err != nil {
		f.Close()
		return nil, err
	}
	resp.Body = &closeBoth{ReadCloser: resp.Body, f: f}
	return resp, nil
}

// roundTripStreamed sends a bulk request (a streamed body) on f while it
// reads the answer: a server may answer before it has read the whole
// body (an import refused at its second line) and close the connection,
// and its answer, not the failed write, is what the request got.
func (t *unixTransport) roundTripStreamed(req *http.Request, f *os.File) (*http.Response, error) {
	type answer struct {
		resp *http.Response
		err  error
	}
	got := make(chan answer, 1)
	go func() {
		resp, err := http.ReadResponse(bufio.NewReader(f), req)
		got <- answer{resp, err}
	}()
	cw := &connWriter{w: f}
	bw := bufio.NewWriter(cw) // not f: its ReadFrom would pass write errors off as the body's
	werr := req.Write(bw)
	if werr == nil {
		werr = bw.Flush()
	}
	if werr != nil && cw.err == nil {
		// The body could not be read: the request is not sent. Shutdown
		// wakes the read, which Close alone would wait for.
		if rc, err := f.SyscallConn(); err == nil {
			rc.Control(func(fd uintptr) { syscall.Shutdown(int(fd), syscall.SHUT_RDWR) })
		}
		<-got
		f.Close()
		return nil, werr
	}
	a := <-got
	if a.err != nil {
		f.Close()
		if werr != nil {
			return nil, werr
		}
		return nil, a.err
	}
	a.resp.Body = &closeBoth{ReadCloser: a.resp.Body, f: f}
	return a.resp, nil
}

// connWriter writes to a connection and keeps its first error.
type connWriter struct {
	w   io.Writer
	err error
}

func (c *connWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	if err != nil && c.err == nil {
		c.err = err
	}
	return n, err
}

// closeBoth closes a response's body and its connection.
type closeBoth struct {
	io.ReadCloser
	f *os.File
}

func (c *closeBoth) Close() error {
	err := c.ReadCloser.Close()
	c.f.Close()
	return err
}

// dialUnix connects to a Unix socket, the connection and the exchange on
// it bounded by timeout from now (the file's deadline, which a request's
// own replaces). The connection is made blocking, then made non-blocking,
// so that the file's reads and writes wait in the runtime's poller.
func dialUnix(path string, timeout time.Duration) (*os.File, error) {
	fd, err := unixSocket()
	if err != nil {
		return nil, err
	}
	// The connection itself is bounded by timeout too.
	tv := syscall.NsecToTimeval(max(timeout, time.Millisecond).Nanoseconds())
	syscall.SetsockoptTimeval(fd, syscall.SOL_SOCKET, syscall.SO_SNDTIMEO, &tv)
	if err := syscall.Connect(fd, &syscall.SockaddrUnix{Name: path}); err != nil {
		syscall.Close(fd)
		return nil, &os.PathError{Op: "connect", Path: path, Err: err}
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil, err
	}
	f := os.NewFile(uintptr(fd), path) // non-blocking: read and written through the poller
	f.SetDeadline(time.Now().Add(timeout))
	return f, nil
}

// Answers reports whether a server answers on the Unix socket path: a
// cheap check before choosing a client over a local engine.
func Answers(path string, timeout time.Duration) bool {
	f, err := dialUnix(path, timeout)
	if err != nil {
		return false
	}
	f.Close()
	return true
}

// IsUnavailable reports whether err says the server could not be reached
// or did not answer as cairn's API does (EUNAVAILABLE), as opposed to an
// answer of the service.
func IsUnavailable(err error) bool {
	return err != nil && cairn.ErrorCode(err) == cairn.EUNAVAILABLE && !errors.Is(err, context.Canceled)
}

// String names the server, for messages.
func (c *Client) String() string { return fmt.Sprint(c.base) }

// Call sends a request to a route outside the project routes (its path
// from the server's root, such as /serve/status on the Unix socket of
// `cairn serve`), with in as its JSON body when not nil, and decodes the
// JSON answer into out when not nil. Errors as the Project methods.
func (c *Client) Call(ctx context.Context, method, path string, in, out any) error {
	return (&Project{c: c}).do(ctx, method, c.base+path, in, out)
}

// Now is the clock of the Project: the time given to At, else this
// machine's clock, in UTC to the millisecond (as engine.Engine's Now).
func (p *Project) Now() time.Time {
	if !p.now.IsZero() {
		return p.now.UTC().Truncate(time.Millisecond)
	}
	return time.Now().UTC().Truncate(time.Millisecond)
}

// Named implements cairn.App: the project name on the same server, at
// the same clock.
func (p *Project) Named(name string) cairn.App { return p.bound(name) }

// bound is p bound to the project name.
func (p *Project) bound(name string) *Project {
	q := *p
	q.name = name
	return &q
}
