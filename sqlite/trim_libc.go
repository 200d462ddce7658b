//go:build !libc.membrk && !libc.memgrind

package sqlite

import (
	_ "unsafe" // go:linkname

	"modernc.org/memory"
)

// The driver's C library (modernc.org/libc) serves SQLite's malloc and
// free from one memory.Allocator behind a mutex, and exposes neither: they
// are reached by name. A version of the library that renames them fails
// to link, and TestTrimMemoryReturnsFreedRegions checks that a trim
// returns what a large blob's read left.
//
//go:linkname libcAllocator modernc.org/libc.allocator
var libcAllocator memory.Allocator

func trimMemory() bool {
	lockLibcAllocator()
	defer unlockLibcAllocator()
	libcAllocator.Trim()
	return true
}
