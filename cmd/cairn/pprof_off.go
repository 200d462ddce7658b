//go:build !pprof

package main

import "io"

// serveProfiles does nothing in a release build: only a build with the
// pprof tag answers profiles (pprof.go).
func serveProfiles(string, io.Writer) {}
