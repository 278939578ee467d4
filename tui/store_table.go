package tui

import (
	"context"
	"fmt"
	"slices"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/source"
)

// The Store view lists objects with the columns kubectl get prints for
// them when the source can tell (source.TableReader): KEY, the server's
// columns, AGE. At storeWideWidth columns or more it adds kubectl's -o
// wide columns and LABELS, as k9s does in wide mode. Rows are asked for
// the visible page only, by a command, one ask at a time per view; the
// answers are applied in update, so drawing never calls the source.

const (
	// storeWideWidth is the terminal width from which wide columns show.
	storeWideWidth = 140
	// storeTableKept bounds the rows kept between asks; past it only the
	// last answer's are kept.
	storeTableKept = 2000
	// storeCellWidth is the widest a server column is drawn.
	storeCellWidth = 40
	// storeTableTimeout ends an ask the source never answers, so the view
	// can ask again; a source bounds its own requests well before.
	storeTableTimeout = time.Minute
)

// storeTableHelp says in the help what the Store's columns are, where
// the source prints them.
var storeTableHelp = fmt.Sprintf("Store shows the columns kubectl get prints (the API server's own, a CRD's printer columns); "+
	"at %d columns or wider also kubectl's -o wide columns and LABELS, as k9s does in wide mode", storeWideWidth)

// storeTable is what the view holds of kubectl's columns for the informer
// it lists: the columns and rows of the answers so far and the one ask in
// flight. Only update touches it.
type storeTable struct {
	cols   []source.TableColumn // nil: none known, the view shows its own columns
	rows   map[string][]string  // cells by key, one per column of cols
	widths []int                // per column of cols: its header's and widest cell's width, capped
	why    string               // the source's sentence when it gives no columns
	asked  rowsAsk              // the last ask sent
	flying bool                 // an ask is in flight; its answer asks again if the page moved
	cancel context.CancelFunc   // ends the ask in flight
	seq    uint64               // numbers the asks, so only the answer to the last one is taken
	// askedEmpty: the columns were asked for with no key (an empty
	// cache), once per informer shown.
	askedEmpty bool
}

// rowsAsk is one ask: a page of keys, at a store generation, wide or not.
type rowsAsk struct {
	keys []string
	gen  uint64
	wide bool
}

func (a rowsAsk) same(b rowsAsk) bool {
	return a.gen == b.gen && a.wide == b.wide && slices.Equal(a.keys, b.keys)
}

// storeRowsMsg is the answer to one ask.
type storeRowsMsg struct {
	informer string
	seq      uint64
	table    source.Table
	err      error
}

// reset forgets the informer shown before, ending its ask in flight (its
// answer is dropped: seq moved on).
func (t *storeTable) reset() {
	if t.cancel != nil {
		t.cancel()
	}
	*t = storeTable{seq: t.seq}
}

// wide reports whether the terminal has room for kubectl's wide columns.
func (v *storeView) wide() bool { return v.c.width >= storeWideWidth }

// askRows asks the source for the rows of the visible page when the page,
// the store's generation or the width mode changed since the last ask,
// unless an ask is in flight: its answer asks again.
func (v *storeView) askRows() tea.Cmd {
	tr := v.c.caps.table
	if tr == nil || !v.loaded || v.mode != storeList || v.table.flying {
		return nil
	}
	lo, hi := v.scroll.window()
	empty := len(v.keys) == 0 && v.table.cols == nil && !v.table.askedEmpty
	if hi <= lo && !v.filterReadsAll() && !empty {
		return nil
	}
	v.table.askedEmpty = v.table.askedEmpty || empty
	ask := rowsAsk{keys: make([]string, 0, hi-lo), gen: v.gen, wide: v.wide()}
	if v.filterReadsAll() {
		// A text filter searches every cell, so every row is needed.
		ask.keys = append(ask.keys, v.keys...)
	} else {
		for r := lo; r < hi; r++ {
			ask.keys = append(ask.keys, v.keys[v.row(r)])
		}
	}
	if ask.same(v.table.asked) && !empty {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), storeTableTimeout)
	v.table.seq++
	v.table.asked, v.table.flying, v.table.cancel = ask, true, cancel
	informer, seq := v.informer, v.table.seq
	return func() tea.Msg {
		defer cancel()
		t, err := tr.Rows(ctx, informer, ask.keys, ask.wide)
		return storeRowsMsg{informer: informer, seq: seq, table: t, err: err}
	}
}

// applyRows takes an answer for the informer shown, then asks for the page
// shown now if it moved meanwhile.
func (v *storeView) applyRows(msg storeRowsMsg) tea.Cmd {
	if msg.informer != v.informer || msg.seq != v.table.seq || !v.table.flying {
		return nil // asked before a switch: the ask since is another
	}
	t := &v.table
	t.flying, t.cancel = false, nil
	hadWhy := t.why != ""
	if msg.err != nil {
		t.cols, t.rows, t.widths, t.why = nil, nil, nil, safe(msg.err.Error())
	} else {
		t.why = ""
		t.take(msg.table)
	}
	if hadWhy != (t.why != "") {
		v.scroll.setHeight(v.tableHeight())
	}
	// The cells just read are searched from the next filtering on.
	v.corpusStale = true
	if v.filter.spec().mode == filterText || (v.sort.on && v.sort.col >= scServer) {
		// They may match, or stop matching, or move.
		sel := v.selectedKey()
		v.applyFilter()
		if i := v.indexOfKey(sel); i >= 0 {
			v.scroll.cursor = i
			v.scroll.clamp()
		}
	}
	return v.askRows()
}

// take keeps an answer's rows with those before, made safe for the
// terminal; new columns start over.
func (t *storeTable) take(tb source.Table) {
	cols := make([]source.TableColumn, len(tb.Columns))
	for i, c := range tb.Columns {
		cols[i] = source.TableColumn{Name: safe(c.Name), Description: safe(c.Description), Wide: c.Wide}
	}
	if len(cols) == 0 {
		return // nothing known yet: the view's own columns stay
	}
	if !slices.Equal(cols, t.cols) || len(t.rows)+len(tb.Rows) > storeTableKept {
		t.cols, t.rows = cols, make(map[string][]string, len(tb.Rows))
	}
	for k, cells := range tb.Rows {
		if len(cells) != len(cols) {
			continue // a source breaking the invariant: blank rather than misplaced
		}
		t.rows[safe(k)] = safeAll(cells)
	}
	t.widths = make([]int, len(cols))
	for i, c := range cols {
		t.widths[i] = width(c.Name)
	}
	for _, cells := range t.rows {
		for i, c := range cells {
			t.widths[i] = max(t.widths[i], width(c))
		}
	}
	for i := range t.widths {
		t.widths[i] = min(t.widths[i], storeCellWidth)
	}
}

// scServer is the column id of the server's first column: the view's own
// columns keep their ids (scKey, scLabels, scAge), the server's i-th is
// scServer+i.
const scServer = scAge + 1

// tableColumns lays out KEY, the server's columns (the wide ones when
// wide), LABELS when wide, and AGE. When the terminal is narrow the
// server's last columns give way first, and AGE last.
func (v *storeView) tableColumns(wide bool) []column {
	t := &v.table
	// KEY grows to the longest key only: the room left goes to LABELS.
	cols := []column{{title: "KEY", width: 30, flex: true, maxw: min(max(v.keyWidth, 30), 64), id: scKey}}
	for i, c := range t.cols {
		if c.Wide && !wide {
			continue
		}
		prio := 10 + i
		if c.Wide {
			prio += 100
		}
		cols = append(cols, column{title: c.Name, width: t.widths[i], prio: prio, id: scServer + i})
	}
	if wide {
		cols = append(cols, column{title: "LABELS", width: 16, flex: true, prio: 1000, id: scLabels})
	}
	return append(cols, column{title: "AGE", width: 7, right: true, prio: 1, id: scAge})
}

// tableCells fills cells (indexed by column id) for key i: a row not
// known yet leaves the server's cells blank.
func (v *storeView) tableCells(cells []string, i int, now time.Time) []string {
	n := scServer + len(v.table.cols)
	if cap(cells) < n {
		cells = make([]string, n)
	}
	cells = cells[:n]
	clear(cells)
	k := v.keys[i]
	cells[scKey], cells[scLabels], cells[scAge] = k, labelCell(v.labels[i]), ageCell(now, v.created[i])
	copy(cells[scServer:], v.table.rows[k])
	return cells
}
