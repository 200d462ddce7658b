//go:build race

package server

// raceDetector: the race detector slows the server tenfold, too much for
// the load test's figures to mean anything.
const raceDetector = true
