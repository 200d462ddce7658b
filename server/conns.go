package server

// Who may hold the HTTP side's connections. A server that answers anyone
// who can reach it must not be locked out by connections that do nothing:
// a few hundred opened and left silent, sending their headers or body a
// byte at a time, or kept alive and idle, would otherwise take every slot.
//
// The gate admits every connection it can, and makes room by closing a
// connection that waits for what its client has yet to send: its first
// request (it connected and sent nothing, or only part of its headers),
// the rest of a body (bodyGrace after the headers), or, only when there
// is no such connection, its next request after an answer (kept alive
// and idle). Among those, the one that has waited longest goes. A
// connection counts as waiting only while the server is blocked reading
// it: one whose request has come but is not read yet (the server is busy)
// keeps its place. So under a flood of connections those closed are the
// ones that send nothing, and a client's kept-alive connection is closed
// last, as it may be reused at any moment. A connection whose request is
// being answered (an event stream's too) is never closed to make room.
// Only when none can go is a new connection refused, with a 503 and the
// JSON error every answer uses.
//
// Connections are trusted when their peer is this machine (a loopback
// address) or once they have carried a request with a valid token;
// others are untrusted. Untrusted connections hold at most Conns −
// Reserve slots, at most PerClient from one address, and are closed
// first: anyone on a network can open connections, but only a token's
// holder or a local process gets the reserve.

import (
	"context"
	"net"
	"net/http"
	"net/netip"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/cairn-dev/cairn"
)

// bodyGrace is how long a request has to send its body before its
// connection may be closed to make room.
const bodyGrace = time.Second

// connPhase is what a connection is doing, as far as the gate cares.
type connPhase int

const (
	waiting connPhase = iota // connected or idle: its next request has not come
	reading                  // its request is being answered, and the body still comes
	busy                     // its request is being answered
)

// connGate admits the connections of one listener. Its methods are safe
// for concurrent use.
type connGate struct {
	max, perClient, reserve int
	// local reports whether a peer is this machine.
	local func(netip.Addr) bool
	now   func() time.Time

	mu        sync.Mutex
	conns     map[*gatedConn]struct{}
	untrusted int
	byPeer    map[netip.Addr]int // untrusted connections by address

	// Counters for the server's log and tests.
	refused, evicted int64
}

func newConnGate(lim Limits) *connGate {
	return &connGate{
		max: lim.Conns, perClient: lim.PerClient, reserve: lim.Reserve,
		local: func(a netip.Addr) bool { return a.IsLoopback() },
		now:   time.Now,
		conns: map[*gatedConn]struct{}{}, byPeer: map[netip.Addr]int{},
	}
}

// gatedConn is a connection the gate admitted.
type gatedConn struct {
	net.Conn
	gate *connGate
	peer netip.Addr

	// Under gate.mu.
	trusted bool
	phase   connPhase
	since   time.Time // when it entered its phase
	served  bool      // a request of it was answered
	gone    bool      // no longer counted

	// blocked: the server waits in Read for bytes the client has not sent.
	blocked atomic.Bool
}

func (c *gatedConn) Read(p []byte) (int, error) {
	c.blocked.Store(true)
	n, err := c.Conn.Read(p)
	c.blocked.Store(false)
	return n, err
}

// Close closes the connection and frees its slot.
func (c *gatedConn) Close() error {
	c.gate.remove(c)
	return c.Conn.Close()
}

// gateListener admits the connections it accepts through gate.
type gateListener struct {
	net.Listener
	gate *connGate
}

func (l *gateListener) Accept() (net.Conn, error) {
	for {
		c, err := l.Listener.Accept()
		if err != nil {
			return nil, err
		}
		if gc := l.gate.admit(c); gc != nil {
			return gc, nil
		}
	}
}

// peerOf is the IP address of a connection's peer; the zero Addr when it
// has none (a pipe in a test).
func peerOf(c net.Conn) netip.Addr {
	ap, err := netip.ParseAddrPort(c.RemoteAddr().String())
	if err != nil {
		return netip.Addr{}
	}
	return ap.Addr().Unmap()
}

// admit counts c in, closing the connections it must to make room; it
// refuses c (answers 503 and closes it) and returns nil when none can go.
func (g *connGate) admit(c net.Conn) *gatedConn {
	peer := peerOf(c)
	now := g.now()
	gc := &gatedConn{Conn: c, gate: g, peer: peer, trusted: g.local(peer), since: now}
	g.mu.Lock()
	var victims []*gatedConn
	// makeRoom closes the connection that waited longest among those
	// that room allows; false when there is none.
	makeRoom := func(room func(*gatedConn) bool) bool {
		v := g.oldest(now, room)
		if v == nil {
			return false
		}
		g.drop(v)
		victims = append(victims, v)
		return true
	}
	untrusted := func(v *gatedConn) bool { return !v.trusted }
	ok := true
	if !gc.trusted && g.perClient > 0 && g.byPeer[peer] >= g.perClient {
		ok = makeRoom(func(v *gatedConn) bool { return !v.trusted && v.peer == peer })
	}
	if ok && !gc.trusted && g.untrusted >= g.max-g.reserve {
		ok = makeRoom(untrusted)
	}
	if ok && len(g.conns) >= g.max {
		// Untrusted connections go first; only a trusted newcomer takes
		// the place of a trusted connection.
		ok = makeRoom(untrusted) || gc.trusted && makeRoom(func(*gatedConn) bool { return true })
	}
	if ok {
		g.conns[gc] = struct{}{}
		if !gc.trusted {
			g.untrusted++
			g.byPeer[peer]++
		}
	} else {
		g.refused++
	}
	g.evicted += int64(len(victims))
	g.mu.Unlock()
	for _, v := range victims {
		v.Conn.Close()
	}
	if !ok {
		refuse(c)
		return nil
	}
	return gc
}

// refuse answers a connection the gate cannot admit and closes it.
func refuse(c net.Conn) {
	body := `{"error":{"code":"` + cairn.EUNAVAILABLE + `","message":"the server has too many connections open; try again in a moment"}}` + "\n"
	c.SetWriteDeadline(time.Now().Add(100 * time.Millisecond))
	c.Write([]byte("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: " +
		strconv.Itoa(len(body)) + "\r\n\r\n" + body))
	c.Close()
}

// oldest returns the connection that room allows and that may be closed
// to make room: one never served before one that was, and among those the
// one that has waited longest; nil when none may. Call with g.mu held.
func (g *connGate) oldest(now time.Time, room func(*gatedConn) bool) *gatedConn {
	var best *gatedConn
	for c := range g.conns {
		if !room(c) || !c.blocked.Load() {
			continue
		}
		switch {
		case c.phase == waiting:
		case c.phase == reading && now.Sub(c.since) >= bodyGrace:
		default:
			continue
		}
		if best == nil || best.served && !c.served || best.served == c.served && c.since.Before(best.since) {
			best = c
		}
	}
	return best
}

// drop stops counting c; call with g.mu held.
func (g *connGate) drop(c *gatedConn) {
	if c.gone {
		return
	}
	c.gone = true
	delete(g.conns, c)
	if !c.trusted {
		g.untrusted--
		if g.byPeer[c.peer]--; g.byPeer[c.peer] <= 0 {
			delete(g.byPeer, c.peer)
		}
	}
}

func (g *connGate) remove(c *gatedConn) {
	g.mu.Lock()
	g.drop(c)
	g.mu.Unlock()
}

// connState follows the http.Server's view of its connections
// (http.Server.ConnState).
func (g *connGate) connState(nc net.Conn, st http.ConnState) {
	c, ok := nc.(*gatedConn)
	if !ok {
		return
	}
	switch st {
	case http.StateActive:
		g.set(c, busy)
	case http.StateIdle:
		g.mu.Lock()
		c.phase, c.since, c.served = waiting, g.now(), true
		g.mu.Unlock()
	case http.StateHijacked, http.StateClosed:
		g.remove(c)
	}
}

func (g *connGate) set(c *gatedConn, p connPhase) {
	g.mu.Lock()
	c.phase, c.since = p, g.now()
	g.mu.Unlock()
}

// trust marks c as trusted: it carried a request with a valid token.
func (g *connGate) trust(c *gatedConn) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if c.trusted {
		return
	}
	c.trusted = true
	if !c.gone {
		g.untrusted--
		if g.byPeer[c.peer]--; g.byPeer[c.peer] <= 0 {
			delete(g.byPeer, c.peer)
		}
	}
}

// readingBody marks c as sending its request's body (reading) or done
// with it (busy); nothing for a connection in another phase.
func (g *connGate) readingBody(c *gatedConn, sending bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case sending && c.phase == busy:
		c.phase, c.since = reading, g.now()
	case !sending && c.phase == reading:
		c.phase, c.since = busy, g.now()
	}
}

// counts reports the connections counted, and how many are untrusted.
func (g *connGate) counts() (all, untrusted int) {
	g.mu.Lock()
	defer g.mu.Unlock()
	return len(g.conns), g.untrusted
}

// connKey is the request context's key of its *gatedConn.
type connKey struct{}

// connContext puts the gated connection into its requests' contexts
// (http.Server.ConnContext).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if gc, ok := c.(*gatedConn); ok {
		return context.WithValue(ctx, connKey{}, gc)
	}
	return ctx
}

// connOf is the gated connection a request came on; nil when it came
// another way (the Unix socket, a test's recorder).
func connOf(r *http.Request) *gatedConn {
	gc, _ := r.Context().Value(connKey{}).(*gatedConn)
	return gc
}
