//go:build pprof

package main

// A build for profiling (`go build -tags pprof ./cmd/cairn`) answers
// net/http/pprof on the loopback address CAIRN_PPROF_ADDR names, such as
// 127.0.0.1:6060, while `cairn serve` runs (docs/performance.md). Release
// builds have no such listener (pprof_off.go).

import (
	"fmt"
	"io"
	"net/http"
	"net/http/pprof"
)

// serveProfiles answers the runtime's profiles at addr ("": none) until
// the process ends.
func serveProfiles(addr string, logw io.Writer) {
	if addr == "" {
		return
	}
	mux := http.NewServeMux()
	mux.HandleFunc("/debug/pprof/", pprof.Index)
	mux.HandleFunc("/debug/pprof/profile", pprof.Profile)
	mux.HandleFunc("/debug/pprof/trace", pprof.Trace)
	mux.HandleFunc("/debug/pprof/symbol", pprof.Symbol)
	fmt.Fprintf(logw, "cairn: profiles at http://%s/debug/pprof/\n", addr)
	go http.ListenAndServe(addr, mux)
}
