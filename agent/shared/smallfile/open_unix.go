//go:build unix

package smallfile

import "syscall"

// openNonblock keeps the open from waiting for a writer, were the path
// swapped for a FIFO between the check and the open.
const openNonblock = syscall.O_NONBLOCK
