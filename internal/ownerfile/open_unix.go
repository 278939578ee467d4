//go:build unix

package ownerfile

import (
	"io/fs"
	"os"
	"syscall"
)

// O_NOFOLLOW refuses a symbolic link as the last element of the path;
// O_NONBLOCK keeps an open of a FIFO from waiting for a reader forever.
const (
	openNoFollow = syscall.O_NOFOLLOW
	openNonblock = syscall.O_NONBLOCK
)

func ownedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return !ok || int(st.Uid) == os.Geteuid()
}
