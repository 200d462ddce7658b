//go:build libc.membrk || libc.memgrind

package sqlite

// The driver's debugging allocators (build tags libc.membrk, libc.memgrind)
// keep no pool to trim.
func trimMemory() bool { return false }
