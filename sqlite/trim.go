package sqlite

// TrimMemory returns to the operating system the memory that SQLite's
// allocator (the driver's, outside the Go runtime and its memory limit)
// keeps free for reuse, and reports whether this build can. The allocator
// keeps the regions a connection frees, up to 4 MiB of each size
// committed: a blob read whole (the postings of a term the engine's cache
// does not hold) is copied into a region of its size rounded up to a
// power of two, so a server's reads leave such a pool in several sizes,
// which nothing in the driver hands back. In `cairn serve` at 1,000,000
// memories that was 8 MiB of its resident size after a load of searches
// (docs/performance.md). Regions still in use stay; the next reads map
// what they need again.
func TrimMemory() bool { return trimMemory() }
