package tui

import (
	"slices"
	"strings"
	"unicode"

	tea "charm.land/bubbletea/v2"
)

// storeSort is how the Store orders its rows, as k9s sorts: by any
// column, shift and the column's initial (O for the KEY, A for AGE, S for
// STATUS…), the same key again reversing it. The zero value is key order.
type storeSort struct {
	on    bool
	col   int    // column id (scKey, scAge, scServer+i)
	title string // the column's title, for the breadcrumb
	desc  bool
}

// sortBy sorts by column col, or reverses the sort when it is the one in
// force. Each starts ascending: for AGE, youngest (newest) first, as k9s.
func (v *storeView) sortBy(col int, title string) {
	sel := v.selectedKey()
	switch {
	case v.sort.on && v.sort.col == col:
		v.sort.desc = !v.sort.desc
	case !v.sort.on && col == scKey:
		// Key order is the KEY column ascending: reverse it.
		v.sort = storeSort{on: true, col: col, title: title, desc: true}
	default:
		v.sort = storeSort{on: true, col: col, title: title}
	}
	if col == scKey && !v.sort.desc {
		v.sort = storeSort{} // ascending keys are the list's own order
	}
	v.applyFilter()
	if i := v.indexOfKey(sel); i >= 0 {
		v.scroll.cursor = i
		v.scroll.clamp()
	}
}

// sortLetter finds the visible column whose title starts with the
// capital letter km types (shift+s: STATUS); ok is false for any other
// key, or a letter no column starts with.
func (v *storeView) sortLetter(km tea.KeyPressMsg) (col int, title string, ok bool) {
	s := km.String()
	if len(s) != 1 || !unicode.IsUpper(rune(s[0])) {
		return 0, "", false
	}
	cols := storeColumns
	if v.table.cols != nil {
		cols = v.tableColumns(v.wide())
	}
	for _, c := range layoutColumns(cols, v.c.width) {
		if strings.HasPrefix(c.title, s) && c.id != scLabels {
			return c.id, c.title, true
		}
	}
	return 0, "", false
}

// sorted orders rows (indexes into keys; nil for all) as v.sort says;
// equal values keep key order.
func (v *storeView) sorted(rows []int) []int {
	if !v.sort.on {
		return rows
	}
	if rows == nil {
		rows = make([]int, len(v.keys))
		for i := range rows {
			rows[i] = i
		}
	} else {
		rows = slices.Clone(rows)
	}
	col, desc := v.sort.col, v.sort.desc
	cmp := func(a, b int) int {
		switch col {
		case scKey:
			return strings.Compare(v.keys[a], v.keys[b])
		case scAge:
			// Ascending ages: the newest first.
			return v.created[b].Compare(v.created[a])
		}
		return naturalCompare(v.cell(a, col), v.cell(b, col))
	}
	slices.SortStableFunc(rows, func(a, b int) int {
		ca, cb := v.cell(a, col), v.cell(b, col)
		if col >= scServer && (ca == "") != (cb == "") {
			// Rows not read yet go last either way.
			if ca == "" {
				return 1
			}
			return -1
		}
		if desc {
			return cmp(b, a)
		}
		return cmp(a, b)
	})
	return rows
}

// cell is key i's server cell of column id col, "" when not read.
func (v *storeView) cell(i, col int) string {
	if col < scServer {
		return ""
	}
	row := v.table.rows[v.keys[i]]
	if j := col - scServer; j < len(row) {
		return row[j]
	}
	return ""
}

// naturalCompare orders text with its numbers by value: "web-2" before
// "web-10", "2/3" before "10/10", "9 (1m ago)" before "10".
func naturalCompare(a, b string) int {
	for a != "" && b != "" {
		da, db := digitsPrefix(a), digitsPrefix(b)
		if da > 0 && db > 0 {
			na, nb := strings.TrimLeft(a[:da], "0"), strings.TrimLeft(b[:db], "0")
			if c := len(na) - len(nb); c != 0 {
				return c
			}
			if c := strings.Compare(na, nb); c != 0 {
				return c
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return int(a[0]) - int(b[0])
		}
		a, b = a[1:], b[1:]
	}
	return len(a) - len(b)
}

func digitsPrefix(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}

// sortCrumb is the breadcrumb's word for the sort: "by age", "by STATUS ↓".
func (v *storeView) sortCrumb() string {
	switch {
	case !v.sort.on:
		return ""
	case v.sort.col == scAge && !v.sort.desc:
		return "by age"
	case v.sort.col == scAge:
		return "by age, oldest first"
	}
	arrow := " ↑"
	if v.sort.desc {
		arrow = " ↓"
	}
	return "by " + v.sort.title + arrow
}
