//go:build linux || freebsd || netbsd || openbsd || dragonfly

package client

import "syscall"

// unixSocket opens a Unix stream socket, closed on exec from the start.
func unixSocket() (int, error) {
	return syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM|syscall.SOCK_CLOEXEC, 0)
}
