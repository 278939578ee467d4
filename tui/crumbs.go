package tui

import "fmt"

// Each view's part of the breadcrumb line (see headerNote): what is open
// inside it and the filter in force, as k9s's crumbs show a drill-down.

func filterCrumb(f *filterBox) []string {
	if q := f.query(); q != "" {
		return []string{"/" + q}
	}
	return nil
}

func (v *storeView) crumbs() []string {
	out := filterCrumb(&v.filter)
	if c := v.sortCrumb(); c != "" {
		out = append(out, c)
	}
	switch v.mode {
	case storeObject:
		if v.from == storeIndexes {
			out = append(out, "indexes")
		}
		if v.obj != nil {
			out = append(out, v.obj.key)
		}
	case storeIndexes:
		out = append(out, "indexes")
	}
	return out
}

func (v *queueView) crumbs() []string {
	out := filterCrumb(&v.filter)
	if v.detail != nil {
		k := v.detail.key
		if k == "" {
			k = keylessLabel(v.detail.types)
		}
		out = append(out, k)
	}
	return out
}

func (v *eventsView) crumbs() []string {
	out := filterCrumb(&v.filter)
	if v.category != 0 {
		out = append(out, "type: "+eventCategories[v.category].name)
	}
	if v.all {
		out = append(out, "all informers")
	}
	if v.open && v.scroll.cursor < len(v.rows) {
		out = append(out, fmt.Sprintf("event #%d", v.c.data.events.at(v.rows[v.scroll.cursor]).Seq))
	}
	return out
}

func (v *listenersView) crumbs() []string {
	var out []string
	if s := v.sortName(); s != "" {
		out = append(out, "by "+s)
	}
	if v.detail && v.scroll.cursor < len(v.rows) {
		out = append(out, v.rows[v.scroll.cursor].stats.Name)
	}
	return out
}
