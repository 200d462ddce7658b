//go:build !amd64

package vector

func dot(a []int8, b []int16) int32 { return dotGo(a, b) }

func setPortable() func() { return func() {} }
