package server

// Where a database's server listens for the other cairn processes of its
// user: a Unix socket next to the database file when its path fits a
// socket's address (about 100 bytes), else one under a short name hashed
// from the database's path, as a PostgreSQL database's stand-in path is,
// in a folder of the user's own: /tmp/cairn-UID. Any database path is
// served, and every process finds the same socket from the path alone.
//
// A socket in the shared /tmp could be another user's: the server makes
// the folder private (0700) and refuses one that is not the user's, and a
// client talks only to a socket its user owns (OwnSocket).

import (
	"crypto/sha256"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/cairn-dev/cairn"
)

// maxSocketPath bounds a socket's path: a Unix socket's address holds
// 104 bytes on macOS and 108 on Linux, its final NUL included.
const maxSocketPath = 100

// SocketPath is where the server of the database at path listens: path +
// ".sock" when that is short enough for a Unix socket, else a hashed name
// in SocketFolder.
func SocketPath(path string) string {
	if p := path + ".sock"; len(p) <= maxSocketPath {
		return p
	}
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(SocketFolder(), hex.EncodeToString(sum[:8])+".sock")
}

// SocketFolder is the folder of the sockets of databases whose path is
// too long for a socket next to them: private to the user.
func SocketFolder() string {
	return filepath.Join("/tmp", "cairn-"+strconv.Itoa(os.Getuid()))
}

// prepareSocketFolder makes the folder of sock ready: SocketFolder must
// be private to the user (checkPrivateFolder); a socket next to its
// database needs nothing.
func prepareSocketFolder(sock string) error {
	if dir := filepath.Dir(sock); dir == SocketFolder() {
		return checkPrivateFolder(dir)
	}
	return nil
}

// checkPrivateFolder creates dir private (0700) when it does not exist,
// and refuses it (EUNAVAILABLE) when it is not a folder of the user's
// that only they may enter: a link, another user's, one open to others.
func checkPrivateFolder(dir string) error {
	if err := os.Mkdir(dir, 0o700); err != nil && !os.IsExist(err) {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot create the folder of the server's socket %s", dir)
	}
	fi, err := os.Lstat(dir)
	if err != nil {
		return cairn.WrapError(cairn.EUNAVAILABLE, err, "cannot read the folder of the server's socket %s", dir)
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !fi.IsDir() || !ok || int(st.Uid) != os.Getuid() || fi.Mode().Perm()&0o077 != 0 {
		return cairn.Errorf(cairn.EUNAVAILABLE, "%s, the folder of the server's socket, is not a folder private to you; remove it, and the server makes it again", dir)
	}
	return nil
}

// OwnSocket reports whether sock is (or links to) a Unix socket that
// belongs to the user: a client sends its requests only there.
func OwnSocket(sock string) bool {
	fi, err := os.Stat(sock)
	if err != nil || fi.Mode()&os.ModeSocket == 0 {
		return false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
