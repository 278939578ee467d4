package tui

import (
	"fmt"
	"strings"
)

// stallPieces are the ways the header can say the stalls, the fullest
// first: the header takes the first that fits.
func stallPieces(st styles, stalls []stalledHandler, fleet bool) []string {
	if fleet {
		if ps := fleetStallPieces(st, stalls); ps != nil {
			return ps
		}
	}
	out := make([]string, 0, stallDetails)
	for detail := range stallDetails {
		out = append(out, stalledPiece(st, stalls, detail))
	}
	return out
}

// fleetProcessMin is the fewest cells a cut process name keeps, the
// ellipsis included: fewer names no process.
const fleetProcessMin = 8

// fleetStallPieces says a fleet's first stall as its parts — the process
// ("eu-west-1/shop/widgets-7d9f"), the informer and the handler — and,
// where the whole does not fit, gives up the least telling first: the
// informer, then the end of the process name (its pod's hash before its
// cluster and namespace), one cell at a time, an ellipsis where it was
// cut. The handler, the code the user looks for, is never cut, nor are
// two parts cut at once; what still does not fit is counted. Nil when
// the informer's name names no process.
func fleetStallPieces(st styles, stalls []stalledHandler) []string {
	first := stalls[0]
	i := strings.LastIndex(first.informer, " · ")
	if i < 0 {
		return nil
	}
	process, informer := first.informer[:i], first.informer[i+len(" · "):]
	more, moreShort := "", ""
	if n := len(stalls) - 1; n > 0 {
		more, moreShort = fmt.Sprintf(" (+%d more)", n), fmt.Sprintf(" +%d", n)
	}
	piece := func(txt string) string { return st.dim.Render(" │ ") + st.warn.Render(txt) }
	out := []string{
		piece("⚠ stalled: " + process + " · " + informer + " › " + first.name + more),
		piece("⚠ stalled: " + process + " · " + informer + " › " + first.name + moreShort),
		piece("⚠ stalled: " + process + " › " + first.name + moreShort),
	}
	for w := width(process) - 1; w >= fleetProcessMin; w-- {
		out = append(out, piece("⚠ stalled: "+truncate(process, w)+" › "+first.name+moreShort))
	}
	return append(out, piece(fmt.Sprintf("⚠ %d stalled", len(stalls))))
}
