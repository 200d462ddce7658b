package server

// Who holds the HTTP side's connections, over real sockets. Bad clients
// tried: one that sends half its headers and stalls, one that sends half
// its body and stalls, one that connects and sends nothing, one kept
// alive and idle, more of each than the server takes, from this machine
// and from addresses that stand for other machines (127.0.0.2 and up),
// and clients that stream events until every stream's slot is taken.

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/netip"
	"strings"
	"testing"
	"time"
)

// onlyFirstLoopbackIsLocal makes 127.0.0.1 this machine's only address:
// other loopback addresses stand for other machines.
func onlyFirstLoopbackIsLocal(c *Config) {
	c.localPeer = func(a netip.Addr) bool { return a == netip.AddrFrom4([4]byte{127, 0, 0, 1}) }
}

// dialFrom connects to addr from the loopback address from ("" for the
// system's choice); the connection is closed when the test ends.
func dialFrom(t *testing.T, from, addr string) net.Conn {
	t.Helper()
	d := net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c, err := d.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// closedWithin reports whether the server closes conn within d (reading
// and discarding what it sends).
func closedWithin(conn net.Conn, d time.Duration) bool {
	conn.SetReadDeadline(time.Now().Add(d))
	_, err := io.Copy(io.Discard, conn)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// get sends one GET over conn and returns the answer's status (0 when the
// connection failed).
func get(conn net.Conn, host, path string) int {
	conn.SetDeadline(time.Now().Add(10 * time.Second))
	defer conn.SetDeadline(time.Time{})
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\n\r\n", path, host)
	buf := make([]byte, 4096)
	n, _ := io.ReadAtLeast(conn, buf, 12)
	var status int
	fmt.Sscanf(string(buf[:n]), "HTTP/1.1 %d", &status)
	return status
}

func TestServerClosesSlowAndIdleHTTPConnections(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, func(c *Config) {
		c.Limits = Limits{Header: 200 * time.Millisecond, Body: 200 * time.Millisecond, Idle: 200 * time.Millisecond}
	})
	addr := s.Addr()
	// Half the headers, then nothing.
	slowHead := dialFrom(t, "", addr)
	fmt.Fprintf(slowHead, "POST /mcp HTTP/1.1\r\nHost: %s\r\n", addr)
	// All the headers and half the body, then nothing.
	slowBody := dialFrom(t, "", addr)
	fmt.Fprintf(slowBody, "POST /api/projects/p/memories HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{\"content\":", addr)
	// One request, then kept alive and idle.
	idle := dialFrom(t, "", addr)
	if st := get(idle, addr, "/api/projects/p/stats"); st != 200 {
		t.Fatalf("a request before idling: %d", st)
	}
	for what, c := range map[string]net.Conn{"a client stalling in its headers": slowHead, "a client stalling in its body": slowBody, "an idle connection": idle} {
		if !closedWithin(c, 20*time.Second) {
			t.Errorf("%s: the server kept the connection open", what)
		}
	}
}

// At its bound of connections, a new connection takes the place of the
// one that has waited longest for its request; the one answered, and a
// stream, keep theirs. When every slot is busy, a newcomer is refused
// with a 503 and the JSON error.
func TestNewConnectionsTakeThePlaceOfTheOnesWaitingLongest(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, func(c *Config) { c.Limits = Limits{Conns: 4} })
	addr := s.Addr()
	var silent []net.Conn
	for range 4 {
		silent = append(silent, dialFrom(t, "", addr))
		time.Sleep(100 * time.Millisecond)
	}
	fresh := dialFrom(t, "", addr)
	if st := get(fresh, addr, "/api/projects/p/stats"); st != 200 {
		t.Fatalf("a request with every slot held by silent connections: %d", st)
	}
	if !closedWithin(silent[0], 5*time.Second) {
		t.Error("the connection silent longest kept its slot")
	}
	if closedWithin(silent[3], 200*time.Millisecond) {
		t.Error("the newest silent connection was closed before older ones")
	}

	// Busy slots: two streams (the most for four connections) and two
	// bodies that are still coming, younger than their grace.
	s2 := openHTTP(t, func(c *Config) { c.Limits = Limits{Conns: 4, Streams: 2} })
	addr = s2.Addr()
	for range 2 {
		c := dialFrom(t, "", addr)
		fmt.Fprintf(c, "GET /api/projects/p/events HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
		c.SetReadDeadline(time.Now().Add(10 * time.Second))
		if _, err := c.Read(make([]byte, 512)); err != nil {
			t.Fatalf("an event stream: %v", err)
		}
	}
	third := dialFrom(t, "", addr)
	if st := get(third, addr, "/api/projects/p/events"); st != 503 {
		t.Errorf("a stream beyond Streams: %d, want 503", st)
	}
	time.Sleep(100 * time.Millisecond)
	var slow []net.Conn
	for range 2 {
		c := dialFrom(t, "", addr)
		fmt.Fprintf(c, "POST /api/projects/p/memories HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 200\r\n\r\n{", addr)
		slow = append(slow, c)
	}
	if !closedWithin(third, 5*time.Second) {
		t.Error("the connection idle after its refused stream kept its slot")
	}
	waitPhase(t, s2, reading, 2)
	refused := dialFrom(t, "", addr)
	refused.SetReadDeadline(time.Now().Add(10 * time.Second))
	b, _ := io.ReadAll(refused)
	if !strings.HasPrefix(string(b), "HTTP/1.1 503") || errorCodeOf(b[strings.Index(string(b), "\r\n\r\n")+4:]) != "unavailable" {
		t.Errorf("a connection when every slot is busy: %q, want a 503 with the JSON error", b)
	}
	// Once a slow body has had its grace, it may go.
	time.Sleep(bodyGrace)
	late := dialFrom(t, "", addr)
	if st := get(late, addr, "/api/projects/p/stats"); st != 200 {
		t.Errorf("a request once the slow bodies' grace ended: %d", st)
	}
	if !closedWithin(slow[0], 5*time.Second) && !closedWithin(slow[1], time.Second) {
		t.Error("both slow bodies kept their slots")
	}
}

// waitPhase waits until the gate counts n connections in phase p.
func waitPhase(t *testing.T, s *testServer, p connPhase, n int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		s.gate.mu.Lock()
		got := 0
		for c := range s.gate.conns {
			if c.phase == p {
				got++
			}
		}
		s.gate.mu.Unlock()
		if got == n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections in phase %d, want %d", got, p, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// waitCounts waits until the gate counts all connections, untrusted of
// them (the server admits a connection after the client's dial returns).
func waitCounts(t *testing.T, s *testServer, all, untrusted int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		a, u := s.gate.counts()
		if a == all && u == untrusted {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d connections, %d untrusted; want %d and %d", a, u, all, untrusted)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// Untrusted connections (other machines, no token yet) get at most
// PerClient slots an address and Conns − Reserve in all; this machine
// and a token's holder get the reserve.
func TestUntrustedConnectionsLeaveTheReserveToTrustedOnes(t *testing.T) {
	t.Parallel()
	s := openHTTP(t, func(c *Config) {
		c.Limits = Limits{Conns: 8, PerClient: 2, Reserve: 4}
		onlyFirstLoopbackIsLocal(c)
	})
	addr := s.Addr()
	tok, _, err := s.eng.CreateToken(t.Context(), "p", "test", true)
	if err != nil {
		t.Fatal(err)
	}
	wait := func() { time.Sleep(100 * time.Millisecond) }
	// Three from one address: the first goes.
	a1 := dialFrom(t, "127.0.0.2", addr)
	waitCounts(t, s, 1, 1)
	wait()
	dialFrom(t, "127.0.0.2", addr)
	waitCounts(t, s, 2, 2)
	wait()
	dialFrom(t, "127.0.0.2", addr)
	if !closedWithin(a1, 5*time.Second) {
		t.Error("a third connection of one address did not take the place of its first")
	}
	waitCounts(t, s, 2, 2)
	wait()
	// Another address fills the untrusted slots (4); a third address
	// takes the place of the untrusted one waiting longest.
	for i := range 2 {
		dialFrom(t, "127.0.0.3", addr)
		waitCounts(t, s, 3+i, 3+i)
		wait()
	}
	dialFrom(t, "127.0.0.4", addr)
	time.Sleep(50 * time.Millisecond)
	waitCounts(t, s, 4, 4)
	// This machine's connections take the reserve.
	for range 4 {
		c := dialFrom(t, "127.0.0.1", addr)
		if st := get(c, addr, "/api/projects/p/stats"); st != 200 {
			t.Fatalf("a local request with the untrusted slots full: %d", st)
		}
	}
	waitCounts(t, s, 8, 4)
	// A connection that sends a valid token is trusted from then on,
	// and leaves the untrusted slots.
	wait()
	c := dialFrom(t, "127.0.0.5", addr)
	c.SetDeadline(time.Now().Add(10 * time.Second))
	fmt.Fprintf(c, "GET /api/projects/p/stats HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\n\r\n", addr, tok)
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a request with a token: %v %v", resp, err)
	}
	resp.Body.Close()
	waitCounts(t, s, 8, 3)
}

// errorCodeOf is the code of a JSON error answer.
func errorCodeOf(b []byte) string {
	var e struct{ Error struct{ Code string } }
	json.Unmarshal(b, &e)
	return e.Error.Code
}
