//go:build unix

package tui

import "syscall"

// openNonblock keeps opening the key map from waiting for a writer, were
// it a FIFO after all.
const openNonblock = syscall.O_NONBLOCK
