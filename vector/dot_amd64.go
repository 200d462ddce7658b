package vector

import "golang.org/x/sys/cpu"

var hasAVX2 = cpu.X86.HasAVX2

// dotAVX2 is the dot product of the first n (a multiple of 16) numbers.
//
//go:noescape
func dotAVX2(a *int8, b *int16, n int) int32

func dot(a []int8, b []int16) int32 {
	n := len(a) &^ 15
	if !hasAVX2 || n == 0 {
		return dotGo(a, b)
	}
	b = b[:len(a)]
	s := dotAVX2(&a[0], &b[0], n)
	if n < len(a) {
		s += dotGo(a[n:], b[n:])
	}
	return s
}

// setPortable makes dot use the portable code until the returned function
// is called (for benchmarks and tests).
func setPortable() func() {
	was := hasAVX2
	hasAVX2 = false
	return func() { hasAVX2 = was }
}
