package tui

import (
	"fmt"
	"sort"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"k8s.io/apimachinery/pkg/labels"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// storeReloadTicks is the least number of ticks between two reads of the
// key list (1 s at the default refresh): a churning 100k-object cache
// changes generation every tick, and re-reading it that often would cost
// more than it shows.
const storeReloadTicks = 10

// storeKeysMsg delivers a key list read off the UI goroutine, with all a
// row shows, so drawing never reads the source.
type storeKeysMsg struct {
	informer string
	watching string // the informer's namespace when read (see storeView.watching)
	keys     []string
	labels   []string     // labelText of each key, what a text filter searches with the key
	sets     []labels.Set // each key's labels, what a -l selector matches
	created  []time.Time  // creation time of each key; zero if unknown
	gen      uint64
}

// loadKeys reads the entries of sr; run as a command.
func loadKeys(informer string, sr source.StoreReader) storeKeysMsg {
	entries, gen := sr.Entries()
	entries = safeEntries(entries)
	msg := storeKeysMsg{informer: informer, gen: gen, keys: make([]string, len(entries)),
		labels: make([]string, len(entries)), created: make([]time.Time, len(entries)),
		sets: make([]labels.Set, len(entries))}
	for i, e := range entries {
		msg.keys[i], msg.created[i] = e.Key, e.Created
		if len(e.Labels) > 0 {
			msg.labels[i] = labelText(e.Labels)
			msg.sets[i] = labels.Set(e.Labels)
		}
	}
	return msg
}

// labelText renders labels as "app=web,tier=frontend", sorted by name.
func labelText(labels map[string]string) string {
	names := make([]string, 0, len(labels))
	for k := range labels {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for i, k := range names {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(k)
		b.WriteByte('=')
		b.WriteString(labels[k])
	}
	return b.String()
}

type storeMode int

const (
	storeList storeMode = iota
	storeObject
	storeIndexes
	storeDescribe // kubectl describe of the selected object (text)
	storeLogs     // a pod's container log (logs)
)

// storeView lists the cached objects with a fuzzy filter over keys and
// labels, opens one object's YAML, and browses the indexes.
type storeView struct {
	c      *common
	mode   storeMode
	scroll scroller
	filter filterBox
	match  matcher // over keys, for -f
	tmatch matcher // over "key\nlabels", for text and regexps
	// corpusStale: cells were read since the text filter's corpus was
	// made (setTextCorpus), so the next text filtering makes it again.
	corpusStale bool
	// sort orders the rows by a column (store_sort.go).
	sort storeSort

	informer string // whose keys are loaded
	// watching is where that informer watched (its namespace) when they
	// were: ":ns" replaces an informer under the same name.
	watching string
	keys     []string // sorted, as read at gen
	labels   []string // labelText per key
	sets     []labels.Set
	created  []time.Time // creation time per key
	keyWidth int         // of the longest key
	noStore  bool        // the source serves no cache for informer
	gen      uint64
	loaded   bool
	loading  bool
	loadedAt uint64 // dataState.ticks of the last read
	rows     []int  // filtered (and sorted) indexes into keys; nil = all in key order

	// table holds kubectl's columns, where the source prints them.
	table storeTable

	obj  *objectPane
	idx  *indexBrowser
	text *textPane // the describe pane
	logs *logsPane // the logs pane
	// from remembers that the object was opened from the index browser,
	// so esc goes back there.
	from storeMode
}

func newStoreView(c *common) *storeView {
	v := &storeView{c: c, filter: newFilterBox(c)}
	v.filter.where = filterWhere{labels: true}
	v.filter.input.Placeholder = "text or regexp · -f fuzzy · -l app=web"
	return v
}

func (v *storeView) name() string    { return "Store" }
func (v *storeView) capturing() bool { return v.mode == storeList && v.filter.editing }

func (v *storeView) shortHelp() []key.Binding {
	k := v.c.keys
	switch v.mode {
	case storeObject:
		return []key.Binding{k.Up, k.Down, k.Back}
	case storeIndexes:
		return []key.Binding{k.Open, k.Back}
	case storeLogs:
		if v.logs != nil && v.logs.picking {
			return []key.Binding{k.Up, k.Down, k.Open, k.Back}
		}
		return []key.Binding{k.Up, k.Down, k.Bottom, k.Back}
	case storeDescribe:
		return []key.Binding{k.Up, k.Down, k.Bottom, k.Back}
	}
	return v.listHelp()
}

func (v *storeView) resize() {
	v.scroll.setHeight(v.tableHeight())
	if v.obj != nil {
		v.obj.setSize(v.c.width, v.c.height-1)
	}
	if v.text != nil {
		v.text.setSize(v.c.width, v.c.height-1)
	}
	if v.logs != nil {
		v.logs.setSize(v.c.width, v.c.height-1)
	}
}

func (v *storeView) tableHeight() int {
	h := v.c.height - 2
	if v.filter.shown() {
		h--
	}
	if v.table.why != "" {
		h--
	}
	return h
}

// refresh reloads the keys when due (reload) and asks for the rows of the
// page shown when it moved (a resize, a wider terminal).
func (v *storeView) refresh() tea.Cmd {
	return tea.Batch(v.reload(), v.askRows())
}

// reload starts a key reload when the informer changed, or when the store
// changed and the last read is old enough.
func (v *storeView) reload() tea.Cmd {
	cur := v.c.data.current
	watching := ""
	if snap := v.c.data.snap(); snap != nil {
		watching = snap.Namespace
	}
	if cur != v.informer || watching != v.watching {
		v.watching = watching
		// Forget the old informer at once, even with its read in flight
		// (applyKeys drops that answer): its keys must not be drawn, or
		// looked up, under the new informer's name.
		v.informer, v.keys, v.labels, v.created, v.rows, v.loaded, v.loading = cur, nil, nil, nil, nil, false, false
		v.sets = nil
		v.sort = storeSort{} // its columns may not be the next one's
		v.table.reset()
		v.closePanes()
		v.filter.clear()
		v.scroll.setLen(0)
		v.match.setCorpus(nil)
		v.tmatch.setCorpus(nil)
	}
	sr := v.c.src.Store(cur)
	v.noStore = sr == nil
	if sr == nil || v.loading {
		return nil
	}
	if v.loaded && v.c.data.ticks-v.loadedAt < storeReloadTicks {
		return nil
	}
	// The generation is read in the command too: only a changed store
	// is listed again, and the open object and index level with it.
	loaded, gen := v.loaded, v.gen
	var reobj, reindex tea.Cmd
	if loaded {
		if v.mode == storeObject && v.obj != nil {
			reobj = v.obj.loadCmd(v.c)
		}
		if v.idx != nil && !v.idx.loading {
			reindex = v.idx.reloadCmd(cur, sr)
		}
	}
	v.loading = true
	return func() tea.Msg {
		if loaded && sr.Generation() == gen {
			return storeUnchangedMsg{informer: cur}
		}
		keys := loadKeys(cur, sr)
		keys.watching = watching
		msgs := []tea.Msg{keys}
		for _, c := range []tea.Cmd{reobj, reindex} {
			if c != nil {
				msgs = append(msgs, c())
			}
		}
		return storeBatchMsg(msgs)
	}
}

// storeUnchangedMsg: a reload found the store's generation unchanged.
type storeUnchangedMsg struct{ informer string }

// storeBatchMsg carries the reads of one reload, applied in order.
type storeBatchMsg []tea.Msg

func (v *storeView) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case storeKeysMsg:
		v.applyKeys(msg)
		return v.askRows()
	case storeRowsMsg:
		return v.applyRows(msg)
	case storeUnchangedMsg:
		if msg.informer == v.informer {
			v.loading, v.loadedAt = false, v.c.data.ticks
		}
		return nil
	case storeBatchMsg:
		cmds := make([]tea.Cmd, len(msg))
		for i, m := range msg {
			cmds[i] = v.update(m)
		}
		return tea.Batch(cmds...)
	case objectMsg:
		if v.obj != nil && msg.informer == v.informer && msg.key == v.obj.key {
			v.obj.apply(v.c, msg)
		}
		return nil
	case indexItemsMsg:
		if v.idx != nil && msg.informer == v.informer {
			v.idx.apply(msg)
		}
		return nil
	case describedMsg:
		v.applyDescribed(msg)
		return nil
	case containersMsg:
		return v.applyContainers(msg)
	case logChunkMsg:
		return v.applyLogChunk(msg)
	case tea.PasteMsg:
		if v.mode != storeList {
			return nil
		}
		_, cmd := v.filter.paste(msg)
		v.applyFilter()
		return tea.Batch(cmd, v.askRows())
	case tea.KeyPressMsg:
		var cmd tea.Cmd
		switch v.mode {
		case storeObject:
			cmd = v.updateObject(msg)
		case storeIndexes:
			cmd = v.updateIndexes(msg)
		case storeDescribe:
			if key.Matches(msg, v.c.keys.Back) {
				v.mode, v.text = storeList, nil
			} else {
				cmd = v.text.update(msg, v.c)
			}
		case storeLogs:
			cmd = v.updateLogs(msg)
		default:
			cmd = v.updateList(msg)
		}
		// The page shown may have moved: scrolled, filtered, sorted, or
		// back from an object.
		return tea.Batch(cmd, v.askRows())
	}
	return nil
}

func (v *storeView) applyKeys(msg storeKeysMsg) {
	if msg.informer != v.informer || msg.watching != v.watching {
		return // read before a switch; the read for v.informer is its own
	}
	selected := v.selectedKey()
	v.keys, v.labels, v.created, v.gen = msg.keys, msg.labels, msg.created, msg.gen
	v.keyWidth = 0
	for _, k := range msg.keys {
		v.keyWidth = max(v.keyWidth, width(k))
	}
	v.sets = msg.sets
	v.loaded, v.loading, v.loadedAt = true, false, v.c.data.ticks
	v.match.setCorpus(msg.keys)
	v.setTextCorpus()
	v.applyFilter()
	// Keep the cursor on the same object when the list shifts under it.
	if selected != "" {
		if i := v.indexOfKey(selected); i >= 0 {
			v.scroll.cursor = i
			v.scroll.clamp()
		}
	}
}

func (v *storeView) applyFilter() {
	spec := v.filter.spec()
	var rows []int // indexes into keys in key order; nil = all
	switch {
	case spec.err != "":
		rows = []int{}
	case spec.mode == filterLabels:
		rows = make([]int, 0, 64)
		for i := range v.keys {
			if i < len(v.sets) && spec.sel.Matches(v.sets[i]) {
				rows = append(rows, i)
			}
		}
	case spec.mode == filterFuzzy:
		rows = v.match.apply(spec)
	case spec.mode == filterText:
		if v.corpusStale {
			v.setTextCorpus()
		}
		rows = v.tmatch.apply(spec)
	}
	rows = v.sorted(rows)
	v.rows = rows
	n := len(v.keys)
	if rows != nil {
		n = len(rows)
	}
	v.scroll.setHeight(v.tableHeight())
	v.scroll.setLen(n)
}

// row maps a visible row to an index in keys.
func (v *storeView) row(r int) int {
	if v.rows != nil {
		return v.rows[r]
	}
	return r
}

func (v *storeView) selectedKey() string {
	if v.scroll.n == 0 || v.scroll.cursor >= v.scroll.n {
		return ""
	}
	if i := v.row(v.scroll.cursor); i < len(v.keys) {
		return v.keys[i]
	}
	return ""
}

// indexOfKey finds the visible row of key: a binary search over the sorted
// keys, then over the rows (binary in key order, else a scan).
func (v *storeView) indexOfKey(k string) int {
	i := sort.SearchStrings(v.keys, k)
	if i >= len(v.keys) || v.keys[i] != k {
		return -1
	}
	if v.rows == nil {
		return i
	}
	if !v.sort.on {
		if r := sort.SearchInts(v.rows, i); r < len(v.rows) && v.rows[r] == i {
			return r
		}
		return -1
	}
	for r, j := range v.rows {
		if j == i {
			return r
		}
	}
	return -1
}

func (v *storeView) updateList(km tea.KeyPressMsg) tea.Cmd {
	k := v.c.keys
	if v.filter.editing {
		changed, cmd := v.filter.update(km, k)
		if changed {
			v.scroll.top()
		}
		v.applyFilter()
		return cmd
	}
	switch {
	case v.noStore && key.Matches(km, k.Filter, k.Open, k.YAML, k.Describe, k.Logs, k.Indexes, k.SortName, k.SortAge):
		return footerSay(v.noStoreText(), nil)
	case key.Matches(km, k.Filter):
		cmd := v.filter.start()
		v.applyFilter()
		return cmd
	case key.Matches(km, k.Back):
		v.filter.clear()
		v.applyFilter()
	case key.Matches(km, k.Open) && v.showsNamespaces():
		if sel := v.selectedKey(); sel != "" {
			return goToNamespace(sel)
		}
	case key.Matches(km, k.Describe):
		if v.c.caps.describe == nil {
			return footerSay("", fmt.Errorf("%s describes an object as kubectl describe does, through a cluster's API server; %s has none: %s shows its YAML from the cache",
				k.Describe.Help().Key, sourceName(v.c), k.YAML.Help().Key))
		}
		if sel := v.selectedKey(); sel != "" {
			return v.describeObject(sel)
		}
	case key.Matches(km, k.Logs):
		return v.logsKey()
	case key.Matches(km, k.UseNamespace):
		return v.useNamespaceKey()
	case key.Matches(km, k.Open, k.YAML):
		if sel := v.selectedKey(); sel != "" {
			return v.openObject(sel, storeList)
		}
	case key.Matches(km, k.SortName):
		v.sortBy(scKey, "KEY")
	case key.Matches(km, k.SortAge):
		v.sortBy(scAge, "AGE")
	case key.Matches(km, k.Indexes):
		var cmd tea.Cmd
		v.idx, cmd = newIndexBrowser(v.c)
		v.mode = storeIndexes
		return cmd
	default:
		if col, title, ok := v.sortLetter(km); ok && !key.Matches(km, k.Up, k.Down, k.PageUp, k.PageDown, k.Top, k.Bottom) {
			v.sortBy(col, title)
			return nil
		}
		v.scroll.handleKey(km, k)
	}
	return nil
}

// noStoreText says why the view lists no objects when the source serves
// no cache for the informer.
func (v *storeView) noStoreText() string {
	if v.c.caps.fleet {
		return whyCountOnly
	}
	return "this source gives no access to the cache"
}

func (v *storeView) openObject(key string, from storeMode) tea.Cmd {
	v.obj = newObjectPane(v.c, key)
	v.obj.setSize(v.c.width, v.c.height-1)
	v.mode, v.from = storeObject, from
	return v.obj.loadCmd(v.c)
}

func (v *storeView) updateObject(km tea.KeyPressMsg) tea.Cmd {
	if key.Matches(km, v.c.keys.Back) {
		v.mode, v.obj = v.from, nil
		return nil
	}
	return v.obj.update(km, v.c)
}

func (v *storeView) updateIndexes(km tea.KeyPressMsg) tea.Cmd {
	open, leave, cmd := v.idx.update(km, v.c)
	switch {
	case leave:
		v.mode, v.idx = storeList, nil
	case open != "":
		return v.openObject(open, storeIndexes)
	}
	return cmd
}

const (
	scKey = iota
	scLabels
	scAge
)

var storeColumns = []column{
	{title: "KEY", width: 30, flex: true, maxw: 64, id: scKey},
	// Labels give way before keys are cut: narrow at 80 columns, the
	// rest of a wide terminal.
	{title: "LABELS", width: 16, flex: true, prio: 1, id: scLabels},
	{title: "AGE", width: 7, right: true, prio: 2, id: scAge},
}

func (v *storeView) render() string {
	switch v.mode {
	case storeObject:
		st := v.c.styles
		title := st.bold.Render(v.obj.key) + st.dim.Render(v.obj.describe())
		return fit(title+"\n"+v.obj.vp.View(), v.c.width, v.c.height)
	case storeIndexes:
		return v.idx.render(v.c, v.c.width, v.c.height)
	case storeDescribe:
		return v.text.render(v.c)
	case storeLogs:
		return v.renderLogs()
	}
	return v.renderList()
}

func (v *storeView) renderList() string {
	st := v.c.styles
	s := v.c.snap()
	lines := []string{v.summary()}
	if v.table.why != "" {
		lines = append(lines, st.dim.Render(v.table.why))
	}
	if v.filter.shown() {
		lines = append(lines, v.filter.view(v.c, v.c.width, v.scroll.n, len(v.keys)))
	}
	table := v.table.cols != nil
	cols := layoutColumns(storeColumns, v.c.width)
	if table {
		cols = layoutColumns(v.tableColumns(v.wide()), v.c.width)
	}
	lines = append(lines, st.colHead.Render(renderHeader(cols)))
	switch {
	case v.noStore:
		for _, l := range wrapText(v.noStoreText(), v.c.width) {
			lines = append(lines, st.dim.Render(l))
		}
	case !v.loaded:
		lines = append(lines, st.dim.Render("reading "+humanize.CountShort(s.Store.Objects)+" keys…"))
	case v.scroll.n == 0 && v.filter.spec().err != "":
		for _, l := range wrapText(v.filter.spec().err, v.c.width) {
			lines = append(lines, st.bad.Render(l))
		}
	case v.scroll.n == 0 && v.filter.query() != "":
		lines = append(lines, st.dim.Render("no cached object matches the filter"))
	case v.scroll.n == 0:
		for _, l := range wrapText(v.emptyText(s), v.c.width) {
			lines = append(lines, st.dim.Render(l))
		}
	}
	spec := v.filter.spec()
	now := v.c.now()
	cells := make([]string, 3)
	lo, hi := v.scroll.window()
	for r := lo; r < hi; r++ {
		i := v.row(r)
		k := v.keys[i]
		if table {
			cells = v.tableCells(cells, i, now)
		} else {
			cells[scKey], cells[scLabels], cells[scAge] = k, labelCell(v.labels[i]), ageCell(now, v.created[i])
		}
		if r != v.scroll.cursor {
			cells[scKey] = highlightSpec(k, spec, st.accent.Render)
		}
		line := renderRow(cols, cells)
		if r == v.scroll.cursor {
			line = st.cursorRow(line, v.c.width)
		}
		lines = append(lines, line)
	}
	return fit(strings.Join(lines, "\n"), v.c.width, v.c.height)
}

func (v *storeView) summary() string {
	st := v.c.styles
	s := v.c.snap()
	objects, indexes := st.bold.Render(humanize.PluralShort(s.Store.Objects, "object")), indexSummary(s.Store.Indexes)
	mem := strings.Split(memoryLine(s.Memory), " · ")
	parts := append([]string{objects, indexes}, mem...)
	if v.c.caps.fleet {
		parts = append([]string{objects}, mem...) // the series name no indexes
	}
	if isClientGo(s) {
		// Its indexes are not reported, and it has no estimate to wait for.
		parts = []string{objects, st.dim.Render("memory not estimated for client-go's own informer")}
	}
	if v.filter.shown() {
		parts = append(parts, st.dim.Render("regexp over keys+labels · -l selector · -f fuzzy"))
	}
	sep := st.dim.Render(" · ")
	if line := joinNonEmpty(sep, parts...); width(line) <= v.c.width || isClientGo(s) {
		return fitParts(sep, v.c.width, parts...)
	}
	// Narrow: the memory estimate before the indexes, and whole figures
	// left out from the end, never one cut.
	return fitParts(sep, v.c.width, append(append([]string{objects}, mem...), indexes)...)
}

// emptyText says where the empty cache looks, and how to look elsewhere.
func (v *storeView) emptyText(s *source.Informer) string {
	text := "no " + safe(s.Name) + " " + scopeWhere(v.c, s) + ": the cache is empty"
	if v.c.caps.retarget != nil {
		text += "; :ns NAME or :" + safe(s.Name) + " -A looks elsewhere"
	}
	return text
}
