//go:build !unix

package smallfile

// openNonblock is 0 where there are no FIFOs to wait on.
const openNonblock = 0
