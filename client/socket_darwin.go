package client

import "syscall"

// unixSocket opens a Unix stream socket, closed on exec. macOS has no
// SOCK_CLOEXEC: the flag is set after, under the fork lock, as the
// standard library's net package does there.
func unixSocket() (int, error) {
	syscall.ForkLock.RLock()
	defer syscall.ForkLock.RUnlock()
	fd, err := syscall.Socket(syscall.AF_UNIX, syscall.SOCK_STREAM, 0)
	if err != nil {
		return -1, err
	}
	syscall.CloseOnExec(fd)
	return fd, nil
}
