package server

import (
	"net/http"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cairn-dev/cairn"
)

// mcpHTTP is MCP over streamable HTTP for any project of the database:
// the SDK's handler, with bounded state. The SDK keeps every session
// until it is deleted or idle for its SessionTimeout, and the server
// keeps an MCP server per project; here at most maxSess sessions live (a
// new one closes the one unused longest) and at most Limits.MCPProjects
// servers are kept (least recently used first out; a dropped server lives
// on only while sessions use it).
type mcpHTTP struct {
	handler  http.Handler
	servers  *projectServers
	touchSrv func() // a request keeps a server with an idle time alive
	maxSess  int
	mu       sync.Mutex
	lastUsed map[string]time.Time     // by session id
	live     map[*mcp.Server]struct{} // servers that may have sessions
}

// newMCPHTTP returns the handler of /mcp; the server's own project is
// served when no ?project= is given.
func (s *Server) newMCPHTTP() (*mcpHTTP, error) {
	lim := s.cfg.Limits
	home := s.cfg.Project
	mh := &mcpHTTP{
		servers:  &projectServers{make: s.newMCPServer, max: lim.MCPProjects, idle: lim.MCPSessionTimeout},
		touchSrv: s.touch,
		maxSess:  lim.MCPSessions,
		lastUsed: map[string]time.Time{},
		live:     map[*mcp.Server]struct{}{},
	}
	if _, err := mh.servers.get(home); err != nil {
		return nil, err
	}
	mh.handler = mcp.NewStreamableHTTPHandler(func(r *http.Request) *mcp.Server {
		project := r.URL.Query().Get("project")
		if project == "" {
			project = home
		}
		srv, err := mh.servers.get(project)
		if err != nil {
			return nil // 400 Bad Request
		}
		mh.makeRoom(srv)
		return srv
	}, &mcp.StreamableHTTPOptions{SessionTimeout: lim.MCPSessionTimeout})
	return mh, nil
}

const sessionHeader = "Mcp-Session-Id"

func (mh *mcpHTTP) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	mh.touchSrv()
	if id := r.Header.Get(sessionHeader); id != "" {
		mh.touch(id)
	}
	mh.handler.ServeHTTP(w, r)
	if id := w.Header().Get(sessionHeader); id != "" && r.Header.Get(sessionHeader) == "" {
		mh.touch(id) // a session was made
	}
}

func (mh *mcpHTTP) touch(id string) {
	mh.mu.Lock()
	defer mh.mu.Unlock()
	if _, ok := mh.lastUsed[id]; ok || len(mh.lastUsed) < 2*mh.maxSess {
		mh.lastUsed[id] = time.Now()
	}
}

// sessions returns the live sessions; call with mh.mu held. It forgets
// servers without sessions that are no longer kept, and the use times of
// sessions that ended.
func (mh *mcpHTTP) sessions() []*mcp.ServerSession {
	var all []*mcp.ServerSession
	ids := map[string]bool{}
	for srv := range mh.live {
		n := 0
		for ss := range srv.Sessions() {
			all = append(all, ss)
			ids[ss.ID()] = true
			n++
		}
		if n == 0 && !mh.servers.kept(srv) {
			delete(mh.live, srv)
		}
	}
	for id := range mh.lastUsed {
		if !ids[id] {
			delete(mh.lastUsed, id)
		}
	}
	return all
}

// makeRoom closes the sessions unused longest while a new session of srv
// would make more than maxSess.
func (mh *mcpHTTP) makeRoom(srv *mcp.Server) {
	mh.mu.Lock()
	mh.live[srv] = struct{}{}
	all := mh.sessions()
	var victims []*mcp.ServerSession
	if extra := len(all) + 1 - mh.maxSess; extra > 0 {
		// A session never seen again since it began counts as unused
		// since the zero time: it goes first.
		slices.SortFunc(all, func(a, b *mcp.ServerSession) int {
			return mh.lastUsed[a.ID()].Compare(mh.lastUsed[b.ID()])
		})
		victims = all[:extra]
	}
	mh.mu.Unlock()
	for _, ss := range victims {
		ss.Close()
	}
}

// counts reports the live sessions and the servers kept, for tests.
func (mh *mcpHTTP) counts() (sessions, servers int) {
	mh.mu.Lock()
	sessions = len(mh.sessions())
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
		oldest := ""
		for name, e := range ps.byName {
			if oldest == "" || e.lastUsed.Before(ps.byName[oldest].lastUsed) {
				oldest = name
			}
		}
		delete(ps.byName, oldest)
	}
	ps.byName[project] = &projectServer{srv: srv, lastUsed: now}
	return srv, nil
}

// kept reports whether srv is one of the servers kept.
func (ps *projectServers) kept(srv *mcp.Server) bool {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	for _, e := range ps.byName {
		if e.srv == srv {
			return true
		}
	}
	return false
}

func (ps *projectServers) len() int {
	ps.mu.Lock()
	defer ps.mu.Unlock()
	return len(ps.byName)
}
