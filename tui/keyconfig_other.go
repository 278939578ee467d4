//go:build !unix

package tui

// openNonblock is 0 where there are no FIFOs to wait on.
const openNonblock = 0
