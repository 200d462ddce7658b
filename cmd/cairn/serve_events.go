package main

// `cairn serve`'s event stream: GET /api/projects/{project}/events, the
// project's events as server-sent events (package eventstream), on the
// HTTP server of serve_http.go.

import (
	"net"
	"net/http"
	"net/netip"
	"strings"
)

// eventsPattern is where the events are served.
const eventsPattern = "GET /api/projects/{project}/events"

// loopbackHostOnly refuses (403) a request that reached a loopback
// address under another host's name: a web page of a domain that
// resolves to 127.0.0.1 (DNS rebinding) must not read the stream. The
// MCP SDK makes the same check for /mcp.
func loopbackHostOnly(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if local, ok := r.Context().Value(http.LocalAddrContextKey).(net.Addr); ok && local != nil {
			if isLoopback(local.String()) && !isLoopback(r.Host) {
				http.Error(w, "the Host header is not this machine's loopback address; use 127.0.0.1 or localhost", http.StatusForbidden)
				return
			}
		}
		h.ServeHTTP(w, r)
	})
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
