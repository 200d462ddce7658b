//go:build !libc.membrk && !libc.memgrind && linux && (amd64 || arm64 || loong64 || ppc64le || s390x || riscv64 || 386 || arm)

package sqlite

import (
	"sync"
	_ "unsafe" // go:linkname
)

// libcAllocatorMu guards libcAllocator on the platforms whose C library is
// translated from musl (modernc.org/libc's libc_musl.go).
//
//go:linkname libcAllocatorMu modernc.org/libc.allocatorMu
var libcAllocatorMu sync.Mutex

func lockLibcAllocator()   { libcAllocatorMu.Lock() }
func unlockLibcAllocator() { libcAllocatorMu.Unlock() }
