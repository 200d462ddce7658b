package server

// A load test: legitimate clients keep being answered while hundreds of
// hostile connections try to hold every slot of the HTTP side. Every
// connection goes to a loopback address, and the test ends after
// -load.duration (3 s by default; run it longer with
//
//	go test ./server -run LegitimateRequests -v -args -load.duration=30s
//
// to see the figures it logs).
//
// The server takes half as many connections as there are hostile ones.
// The hostile connections, in equal shares: connected and silent; sending
// their headers a line a second (slow-loris); sending a body a byte a
// second; kept alive and idle after one request; holding an event
// stream. Each connects again a quarter of a second after the server
// closes it. On a server
// other machines reach, they come from ten addresses (127.0.0.2 to .11)
// that stand for other machines and send no token; the legitimate
// clients send a token, from one more such address and from this
// machine.

import (
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

var (
	loadDuration = flag.Duration("load.duration", 3*time.Second, "how long the load test's hostile connections last")
	loadHostile  = flag.Int("load.hostile", 500, "the load test's hostile connections")
)

// hostileKinds are what hostile connections do once connected.
var hostileKinds = []func(ctx context.Context, c net.Conn, host string){
	// Silent.
	func(ctx context.Context, c net.Conn, host string) { waitClosed(ctx, c) },
	// Headers a line a second.
	func(ctx context.Context, c net.Conn, host string) {
		if _, err := fmt.Fprintf(c, "GET /api/projects/p/stats HTTP/1.1\r\nHost: %s\r\n", host); err != nil {
			return
		}
		trickle(ctx, c, "X-Slow: 1\r\n")
	},
	// A body a byte a second.
	func(ctx context.Context, c net.Conn, host string) {
		if _, err := fmt.Fprintf(c, "POST /api/projects/p/memories HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{", host); err != nil {
			return
		}
		trickle(ctx, c, " ")
	},
	// One request, then idle.
	func(ctx context.Context, c net.Conn, host string) {
		if _, err := fmt.Fprintf(c, "GET /api/projects/p/stats HTTP/1.1\r\nHost: %s\r\n\r\n", host); err != nil {
			return
		}
		c.Read(make([]byte, 4096))
		waitClosed(ctx, c)
	},
	// An event stream, held.
	func(ctx context.Context, c net.Conn, host string) {
		if _, err := fmt.Fprintf(c, "GET /api/projects/p/events HTTP/1.1\r\nHost: %s\r\n\r\n", host); err != nil {
			return
		}
		waitClosed(ctx, c)
	},
}

// waitClosed reads from c until the server closes it or ctx ends.
func waitClosed(ctx context.Context, c net.Conn) {
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	io.Copy(io.Discard, c)
}

// trickle writes s every second until the server closes c or ctx ends.
func trickle(ctx context.Context, c net.Conn, s string) {
	stop := context.AfterFunc(ctx, func() { c.Close() })
	defer stop()
	go io.Copy(io.Discard, c)
	for {
		select {
		case <-ctx.Done():
			return
		case <-time.After(time.Second):
		}
		if _, err := io.WriteString(c, s); err != nil {
			return
		}
	}
}

// reconnectPause is how long a hostile connection closed by the server
// waits before it connects again.
const reconnectPause = 250 * time.Millisecond

// hostile keeps n hostile connections to addr, from the addresses from
// (round robin), until ctx ends; it returns how many connections it made.
func hostile(ctx context.Context, addr string, n int, from []string) *atomic.Int64 {
	var made atomic.Int64
	for i := range n {
		kind := hostileKinds[i%len(hostileKinds)]
		d := net.Dialer{Timeout: 2 * time.Second, LocalAddr: &net.TCPAddr{IP: net.ParseIP(from[i%len(from)])}}
		go func() {
			for ctx.Err() == nil {
				c, err := d.DialContext(ctx, "tcp", addr)
				if err != nil {
					time.Sleep(10 * time.Millisecond)
					continue
				}
				made.Add(1)
				kind(ctx, c, addr)
				c.Close()
				// Back a moment later: holding connections is the attack
				// here; a flood of new ones is a firewall's to limit.
				time.Sleep(reconnectPause)
			}
		}()
	}
	return &made
}

// tally counts legitimate requests.
type tally struct{ ok, failed atomic.Int64 }

func (t *tally) count(err error) {
	if err != nil {
		t.failed.Add(1)
	} else {
		t.ok.Add(1)
	}
}

// legitimate sends requests to addr as a client of the API would (one
// keep-alive client, a 5 s timeout each), from the address from with
// token (each when set), until ctx ends.
func legitimate(ctx context.Context, addr, from, token string, out *tally, errs chan<- error) {
	d := &net.Dialer{Timeout: 5 * time.Second}
	if from != "" {
		d.LocalAddr = &net.TCPAddr{IP: net.ParseIP(from)}
	}
	c := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{DialContext: d.DialContext, MaxIdleConnsPerHost: 2}}
	defer c.CloseIdleConnections()
	paths := []string{"/api/projects/p/search?q=flaky+clock", "/api/projects/p/memories?limit=5", "/api/projects/p/stats"}
	for i := 0; ctx.Err() == nil; i++ {
		req, _ := http.NewRequest("GET", "http://"+addr+paths[i%len(paths)], nil)
		if token != "" {
			req.Header.Set("Authorization", "Bearer "+token)
		}
		resp, err := c.Do(req)
		if err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
			if resp.StatusCode != 200 {
				err = fmt.Errorf("%s: %s", req.URL.Path, resp.Status)
			}
		}
		out.count(err)
		if err != nil {
			select {
			case errs <- err:
			default:
			}
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// legitimateMCP calls a tool every 50 ms through one MCP session.
func legitimateMCP(ctx context.Context, url, token string, out *tally, errs chan<- error) {
	cs, err := connectMCP(ctx, url, token)
	out.count(err)
	if err != nil {
		errs <- err
		return
	}
	defer cs.Close()
	for ctx.Err() == nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		res, err := cs.CallTool(cctx, &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": "flaky clock"}})
		cancel()
		if err == nil && res.IsError {
			err = fmt.Errorf("search: %v", res.Content)
		}
		out.count(err)
		if err != nil {
			select {
			case errs <- err:
			default:
			}
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// Not parallel: it runs alone, before the package's parallel tests, so
// that their work does not count against the server's.
func TestLegitimateRequestsSucceedUnderHostileConnections(t *testing.T) {
	if raceDetector {
		t.Skip("the race detector slows the server too much for a load test")
	}
	for _, team := range []bool{false, true} {
		name := "local"
		if team {
			name = "team"
		}
		t.Run(name, func(t *testing.T) {
			s := openHTTP(t, func(c *Config) {
				// Fewer slots than hostile connections: they cannot all
				// have one.
				c.Limits = Limits{Conns: *loadHostile / 2}
				if team {
					onlyFirstLoopbackIsLocal(c)
					c.testRemote = true
				}
			})
			addr := s.Addr()
			hostileFrom, legitFrom, token := []string{"127.0.0.1"}, []string{"127.0.0.1"}, ""
			if team {
				hostileFrom = nil
				for i := 2; i <= 11; i++ {
					hostileFrom = append(hostileFrom, fmt.Sprintf("127.0.0.%d", i))
				}
				legitFrom = []string{"127.0.0.12", "127.0.0.1"}
				var err error
				if token, _, err = s.eng.CreateToken(t.Context(), "p", "team", false); err != nil {
					t.Fatal(err)
				}
			}
			ctx, cancel := context.WithTimeout(t.Context(), *loadDuration+time.Second)
			defer cancel()
			made := hostile(ctx, addr, *loadHostile, hostileFrom)
			// Let the hostile connections take their places first.
			time.Sleep(time.Second)
			var rest, mcpTally tally
			errs := make(chan error, 10)
			var wg sync.WaitGroup
			for i := range 4 {
				wg.Go(func() { legitimate(ctx, addr, legitFrom[i%len(legitFrom)], token, &rest, errs) })
			}
			wg.Go(func() { legitimateMCP(ctx, "http://"+addr+"/mcp", token, &mcpTally, errs) })
			var all, untrusted int
			wg.Go(func() {
				time.Sleep(*loadDuration / 2)
				all, untrusted = s.gate.counts()
			})
			wg.Wait()
			close(errs)
			ok, failed := rest.ok.Load()+mcpTally.ok.Load(), rest.failed.Load()+mcpTally.failed.Load()
			s.gate.mu.Lock()
			evicted, refused := s.gate.evicted, s.gate.refused
			s.gate.mu.Unlock()
			t.Logf("%s: %d hostile connections held (%d made in %v); legitimate requests %d of %d answered (%.2f%%; MCP %d of %d); the server held %d connections halfway (%d untrusted; its most %d), closed %d to make room, refused %d",
				name, *loadHostile, made.Load(), *loadDuration+time.Second, ok, ok+failed, 100*float64(ok)/float64(max(ok+failed, 1)),
				mcpTally.ok.Load(), mcpTally.ok.Load()+mcpTally.failed.Load(), all, untrusted, s.cfg.Limits.Conns, evicted, refused)
			for err := range errs {
				t.Logf("a failure: %v", err)
			}
			if ok+failed < 20 {
				t.Fatalf("only %d legitimate requests were sent", ok+failed)
			}
			if float64(ok) < 0.99*float64(ok+failed) {
				t.Errorf("%d of %d legitimate requests answered, want at least 99%%", ok, ok+failed)
			}
		})
	}
}
