package demo

import (
	"fmt"
	"strings"

	"github.com/informtop/informtop/agent/shared/humanize"
)

// addNote appends a line to the current note.
func (d *Demo) addNote(line string) {
	if line == "" {
		return
	}
	d.mu.Lock()
	d.notes = append(append([]string(nil), d.notes...), line)
	d.mu.Unlock()
}

// initialListNote says how each informer's newest initial list came, from
// its reflector's counts: streamed (WatchList) or LIST pages, and why
// pages where the demo's default would stream. Informers that came the
// same way share a sentence.
func initialListNote(d *Demo) string {
	var streamed, paged []string
	var items, pages int
	for _, e := range d.Informers() {
		r := e.State().Reflector
		if r.Lists == 0 || r.ListInProgress {
			continue
		}
		if r.ListStreamed {
			streamed = append(streamed, e.Name())
			items += r.LastListItems
		} else {
			paged = append(paged, e.Name())
			pages += int(r.ListPages)
		}
	}
	var out []string
	if len(streamed) > 0 {
		out = append(out, fmt.Sprintf("Initial list of %s: streamed (WatchList, as client-go v0.37 does), %s then a bookmark.",
			strings.Join(streamed, ", "), humanize.Plural(items, "ADDED event")))
	}
	if len(paged) > 0 {
		what := "Initial list of %s: LIST, %s%s."
		if len(out) > 0 {
			what = "%s: LIST, %s%s."
		}
		out = append(out, fmt.Sprintf(what, strings.Join(paged, ", "), humanize.Plural(pages, "page"), d.pagedWhy()))
	}
	return strings.Join(out, " ")
}

// pagedWhy says why lists came in pages where client-go v0.37 would
// stream them.
func (d *Demo) pagedWhy() string {
	switch {
	case !d.cfg.watchList && d.cfg.List == ListPages:
		return " (--watch-list off: the server has no WatchList)"
	case !d.cfg.watchList:
		return " (this scenario's server has WatchList off, to show the pages)"
	}
	return " (a client without bookmarks cannot stream)"
}
