package server

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
	"github.com/cairn-dev/cairn/httpapi"
)

// mcpHTTP is MCP over streamable HTTP for any project of the database:
// the SDK's handler, with sessions bound and bounded.
//
// A session belongs to the project and the token of the request that
// began it: a request that names it with another project (?project=) or
// another token, or none where it began with one, is refused (403), so
// that one project's token cannot read another's memories through a
// session id it learned.
//
// At most maxSess sessions live: a new session ends the one unused
// longest, if it has been unused (no request in flight, none for idle);
// otherwise the new one is refused (503), so that clients in use are
// never cut off by newcomers. The SDK ends a session unused for its
// SessionTimeout. At most Limits.MCPProjects MCP servers are kept (least
// recently used first out; a dropped server lives on only while sessions
// use it).
type mcpHTTP struct {
	handler  http.Handler // the SDK's
	servers  *projectServers
	home     string
	touchSrv func() // a request keeps a server with an idle time alive
	fail     func(http.ResponseWriter, *http.Request, error)
	maxSess  int
	idle     time.Duration
	now      func() time.Time

	mu       sync.Mutex
	sessions map[string]*mcpSession // by id
	starting int                    // sessions being made
}

// mcpSession is what the server knows of a live session.
type mcpSession struct {
	project  string
	token    string // the id of the token it began with; "" for none
	srv      *mcp.Server
	ss       *mcp.ServerSession // nil until the session is found after its start
	lastUsed time.Time
	inFlight int // requests being answered, but for the GET stream
}

// mcpServerKey is the request context's key of the MCP server that
// answers it (the SDK asks for it on every request).
type mcpServerKey struct{}

// newMCPHTTP returns the handler of /mcp; the server's own project is
// served when no ?project= is given. fail answers errors as the API does;
// remote as newMCPServer's.
func (s *Server) newMCPHTTP(fail func(http.ResponseWriter, *http.Request, error), remote bool) (*mcpHTTP, error) {
	lim := s.cfg.Limits
	newServer := func(project string) (*mcp.Server, error) { return s.newMCPServer(project, remote) }
	mh := &mcpHTTP{
		servers:  &projectServers{make: newServer, max: lim.MCPProjects, idle: lim.MCPSessionTimeout},
		home:     s.cfg.Project,
		touchSrv: s.touch,
		fail:     fail,
		maxSess:  lim.MCPSessions,
		idle:     lim.MCPSessionIdle,
		now:      time.Now,
		sessions: map[string]*mcpSession{},
	}
	if _, err := mh.servers.get(mh.home); err != nil {
		return nil, err
	}
	mh.handler = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		srv, _ := r.Context().Value(mcpServerKey{}).(*mcp.Server)
		return srv // nil: 400 Bad Request
	}, &mcp.StreamableHTTPOptions{SessionTimeout: lim.MCPSessionTimeout})
	return mh, nil
}

const sessionHeader = "Mcp-Session-Id"

// maxMCPBody bounds an MCP request's body, as the SDK does by default.
const maxMCPBody = mcp.DefaultMaxRequestBodyBytes

func (mh *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mh.touchSrv()
	project := r.URL.Query().Get("project")
	if project == "" {
		project = mh.home
	}
	token := ""
	if tok := httpapi.TokenOf(r); tok != nil {
		token = tok.ID
	}
	var body []byte
	if r.Method == http.MethodPost {
		// Read whole and checked here: the SDK's JSON decoding would
		// replace bad bytes, and the tools store what the client did not
		// send.
		b, err := httpapi.ReadBody(w, r, maxMCPBody)
		if err != nil {
			mh.fail(w, r, err)
			return
		}
		body = b
		r.Body = io.NopCloser(bytes.NewReader(body))
	}
	if id := r.Header.Get(sessionHeader); id != "" {
		// A GET holds the session's stream of messages from the server
		// for as long as the client lives: it does not make the session
		// one in use.
		inUse := r.Method != http.MethodGet
		e, err := mh.use(id, project, token, inUse)
		if err != nil {
			mh.fail(w, r, err)
			return
		}
		if inUse {
			defer mh.done(e)
		}
		mh.handler.ServeHTTP(w, r.WithContext(context.WithValue(r.Context(), mcpServerKey{}, e.srv)))
		return
	}
	srv, err := mh.servers.get(project)
	if err != nil {
		mh.fail(w, r, err)
		return
	}
	r = r.WithContext(context.WithValue(r.Context(), mcpServerKey{}, srv))
	if r.Method != http.MethodPost {
		mh.handler.ServeHTTP(w, r) // the SDK refuses it
		return
	}
	// Only an initialize makes a session and needs a place: a client's
	// other requests without a session (a discovery of the protocol
	// versions before it) are answered by the SDK without one.
	reserved := isInitialize(body)
	if reserved {
		if err := mh.makeRoom(); err != nil {
			mh.fail(w, r, err)
			return
		}
	}
	sw := &sessionWriter{ResponseWriter: w, begin: func(id string) *mcpSession {
		return mh.begin(id, &mcpSession{project: project, token: token, srv: srv}, reserved)
	}}
	mh.handler.ServeHTTP(sw, r)
	mh.started(sw, reserved)
}

// isInitialize reports whether the body of a POST is a JSON-RPC
// initialize request.
func isInitialize(body []byte) bool {
	var req struct {
		Method string `json:"method"`
	}
	return json.Unmarshal(body, &req) == nil && req.Method == "initialize"
}

// use finds the session id for a request of project with token: ENOTFOUND
// when it ended (the client starts a new one), EFORBIDDEN when it belongs
// to another project or token. A request inUse keeps the session from
// being ended to make room until done is called.
func (mh *mcpHTTP) use(id, project, token string, inUse bool) (*mcpSession, error) {
	mh.mu.Lock()
	defer mh.mu.Unlock()
	e := mh.sessions[id]
	if e == nil {
		return nil, cairn.Errorf(cairn.ENOTFOUND, "no MCP session %s: it ended (unused, or the server restarted); start a new one", id)
	}
	if e.project != project || e.token != token {
		return nil, cairn.Errorf(cairn.EFORBIDDEN, "this MCP session belongs to another project or token; start a session of your own")
	}
	if inUse {
		e.inFlight++
	}
	e.lastUsed = mh.now()
	return e, nil
}

func (mh *mcpHTTP) done(e *mcpSession) {
	mh.mu.Lock()
	e.inFlight--
	e.lastUsed = mh.now()
	mh.mu.Unlock()
}

// makeRoom holds a place for a new session, ending the session unused
// longest when the sessions are at their bound: EUNAVAILABLE when every
// session is in use. The place is the new session's, or freed, once
// started is called.
func (mh *mcpHTTP) makeRoom() error {
	mh.mu.Lock()
	var victim *mcp.ServerSession
	if len(mh.sessions)+mh.starting >= mh.maxSess {
		now := mh.now()
		var oldest string
		for id, e := range mh.sessions {
			if e.inFlight > 0 || e.ss == nil || now.Sub(e.lastUsed) < mh.idle {
				continue
			}
			if oldest == "" || e.lastUsed.Before(mh.sessions[oldest].lastUsed) {
				oldest = id
			}
		}
		if oldest == "" {
			mh.mu.Unlock()
			return cairn.Errorf(cairn.EUNAVAILABLE, "the server has %d MCP sessions in use, its most; try again later", mh.maxSess)
		}
		victim = mh.sessions[oldest].ss
		delete(mh.sessions, oldest)
	}
	mh.starting++
	mh.mu.Unlock()
	if victim != nil {
		victim.Close()
	}
	return nil
}

// begin records a session as the SDK makes it, before the client can
// learn its id; the place makeRoom held for it (reserved) becomes the
// session's at once, so that a client that starts its next session as
// soon as it has this one's answer does not find the place counted twice.
func (mh *mcpHTTP) begin(id string, e *mcpSession, reserved bool) *mcpSession {
	e.lastUsed = mh.now()
	mh.mu.Lock()
	mh.sessions[id] = e
	if reserved {
		mh.starting--
	}
	mh.mu.Unlock()
	return e
}

// started ends the making of a session: it finds the SDK's session, and
// forgets it when it ends; a session the SDK did not keep (its
// initialization failed) is forgotten at once.
func (mh *mcpHTTP) started(sw *sessionWriter, reserved bool) {
	if sw.session == nil {
		if reserved {
			mh.mu.Lock()
			mh.starting-- // no session began: its place is free again
			mh.mu.Unlock()
		}
		return
	}
	var ss *mcp.ServerSession
	for s := range sw.session.srv.Sessions() {
		if s.ID() == sw.id {
			ss = s
			break
		}
	}
	if ss == nil {
		mh.forget(sw.id, sw.session)
		return
	}
	mh.mu.Lock()
	sw.session.ss = ss
	mh.mu.Unlock()
	go func() {
		ss.Wait()
		mh.forget(sw.id, sw.session)
	}()
}

// forget drops the session id, if e is still what it names.
func (mh *mcpHTTP) forget(id string, e *mcpSession) {
	mh.mu.Lock()
	if mh.sessions[id] == e {
		delete(mh.sessions, id)
	}
	mh.mu.Unlock()
}

// sessionWriter records the session a response begins, when its headers
// are written: before the client can send its id back.
type sessionWriter struct {
	http.ResponseWriter
	begin   func(id string) *mcpSession
	id      string
	session *mcpSession
	wrote   bool
}

func (sw *sessionWriter) WriteHeader(code int) {
	if !sw.wrote {
		sw.wrote = true
		if id := sw.Header().Get(sessionHeader); id != "" && code < 300 {
			sw.id, sw.session = id, sw.begin(id)
		}
	}
	sw.ResponseWriter.WriteHeader(code)
}

func (sw *sessionWriter) Write(p []byte) (int, error) {
	if !sw.wrote {
		sw.WriteHeader(http.StatusOK)
	}
	return sw.ResponseWriter.Write(p)
}

// Unwrap lets http.ResponseController reach the connection (flushes and
// deadlines of the SDK's streams).
func (sw *sessionWriter) Unwrap() http.ResponseWriter { return sw.ResponseWriter }

// Flush flushes what was written, for the SDK's event streams.
func (sw *sessionWriter) Flush() {
	if !sw.wrote {
		sw.WriteHeader(http.StatusOK)
	}
	if f, ok := sw.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

// counts reports the live sessions and the servers kept, for tests.
func (mh *mcpHTTP) counts() (sessions, servers int) {
	mh.mu.Lock()
	sessions = len(mh.sessions)
	mh.mu.Unlock()
	return sessions, mh.servers.len()
}

// projectServers are the MCP servers of the projects asked for over HTTP,
// made on first use and shared by their sessions: at most max, least
// recently used first out, and none unused for idle.
type projectServers struct {
	make func(project string) (*mcp.Server, error)
	max  int
	idle time.Duration

	mu     sync.Mutex
	byName map[string]*projectServer
}

type projectServer struct {
	srv      *mcp.Server
	lastUsed time.Time
}

// get returns the server of project: EINVALID for a name that is not a
// project's.
func (ps *projectServers) get(project string) (*mcp.Server, error) {
	if !cairn.ValidProject(project) {
		return nil, cairn.Errorf(cairn.EINVALID, "project %q is not valid", project)
	}
	ps.mu.Lock()
	defer ps.mu.Unlock()
	now := time.Now()
	if ps.byName == nil {
		ps.byName = map[string]*projectServer{}
	}
	for name, e := range ps.byName {
		if now.Sub(e.lastUsed) > ps.idle && name != project {
			delete(ps.byName, name)
		}
	}
	if e := ps.byName[project]; e != nil {
		e.lastUsed = now
		return e.srv, nil
	}
	srv, err := ps.make(project)
	if err != nil {
		return nil, err
	}
	if len(ps.byName) >= ps.max {
		names := make([]string, 0, len(ps.byName))
		for name := range ps.byName {
			names = append(names, name)
		}
		oldest := slices.MinFunc(names, func(a, b string) int { return ps.byName[a].lastUsed.Compare(ps.byName[b].lastUsed) })
		delete(ps.byName, oldest)
	}
	ps.byName[project] = &projectServer{srv: srv, lastUsed: now}
	return srv, nil
}

func (ps *projectServers) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.byName)
}
