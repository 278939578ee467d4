package tui

import (
	"strings"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
)

// informerState is the one state the header and the switcher give an
// informer. ✓ shows only while its cache can be trusted: an informer that
// synced once and then lost its watch, or is listing again, holds what
// the server had before, so it reads stale until the relist lands (a
// relist after an outage can take a minute of client-go's backoff).
type informerState struct {
	mark, text string
	level      stateLevel
}

type stateLevel int

const (
	stateOK stateLevel = iota
	stateDim
	stateWarn
	stateBad
)

func stateOf(s *source.Informer, why string) informerState {
	// The link's state (source.LinkOf) says why a watch is not open: the
	// server refused, answered 410 and a relist waits, or is not reached.
	link := source.LinkOf(*s, strings.HasPrefix(why, say.DeniedPrefix))
	if isPprof(s) {
		link = "" // its reflector is out of sight
	}
	switch {
	case s.Stopped:
		return informerState{"■", "stopped", stateDim}
	case link == source.LinkForbidden && !s.Synced:
		// The access check or the server answered: it will not sync
		// until RBAC changes.
		return informerState{"✗", "forbidden", stateBad}
	case link == source.LinkWatchDown && !s.Synced:
		return informerState{"✗", "watch down", stateBad}
	case link == source.LinkRelistPending && !s.Synced:
		return informerState{"✗", "relist pending", stateWarn}
	case link == source.LinkRelistPending:
		return informerState{"⚠", "stale: relist pending", stateWarn}
	case link == source.LinkForbidden:
		return informerState{"⚠", "stale: forbidden", stateBad}
	case !s.Synced:
		return informerState{"✗", "syncing", stateWarn}
	case isPprof(s):
		// Read from goroutine dumps: its reflector is out of sight, so
		// nothing says stale; its listeners run.
		return informerState{"✓", "running", stateOK}
	}
	// source.StaleOf is the fleet's ranking's reading too, so the two agree.
	switch why := source.StaleOf(*s); why {
	case source.StaleRelisting:
		return informerState{"⚠", "stale: " + why, stateWarn}
	case "":
	default:
		return informerState{"⚠", "stale: " + why, stateBad}
	}
	return informerState{"✓", "synced", stateOK}
}

// render styles the state's mark and text.
func (i informerState) render(st styles) string { return i.styled(st, i.mark+" "+i.text) }

// styled styles txt as the state's level.
func (i informerState) styled(st styles, txt string) string {
	switch i.level {
	case stateDim:
		return st.dim.Render(txt)
	case stateWarn:
		return st.warn.Render(txt)
	case stateBad:
		return st.bad.Render(txt)
	}
	return st.ok.Render(txt)
}
