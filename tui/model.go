package tui

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/informtop/informtop/agent/source"
)

// Options configure the dashboard.
type Options struct {
	// Refresh is how often a snapshot is pulled; default 100ms.
	Refresh time.Duration
	// KeyMapPath is a YAML file remapping keys; "" means
	// $XDG_CONFIG_HOME/informtop/keys.yaml (or ~/.config/informtop/keys.yaml).
	KeyMapPath string
	// StallThreshold is how long one callback may run before its listener is
	// shown as stalled; default 2s.
	StallThreshold time.Duration
	// Contexts and UseContext, set for a cluster, serve ":ctx": the
	// kubeconfig's contexts and the one in use, and connecting to another.
	// UseContext returns the new source already running; whoever made it
	// stops the old one.
	Contexts   func() (names []string, current string)
	UseContext func(ctx context.Context, name string) (source.Source, error)
	// Attach, set for a fleet, opens a process's agent (Enter on the
	// Fleet view): the source returned runs already, stop ends it. The
	// fleet's source keeps running; esc or :fleet goes back to it.
	Attach func(ctx context.Context, p source.Process) (src source.Source, stop func(), err error)
}

const (
	defaultRefresh = 100 * time.Millisecond
	minRefresh     = 10 * time.Millisecond
	defaultStall   = source.StallAfter
)

// Model is the root of the dashboard. It owns the window size, the key
// map, the source and the tick; it handles the global keys and forwards
// everything else to the focused view. All of its state is touched only
// from Bubble Tea's update goroutine.
type Model struct {
	c       *common
	opts    Options
	views   []view
	active  viewID
	width   int
	height  int
	refresh time.Duration

	showHelp  bool
	helpOff   int // first line of the help shown, when it is taller than the screen
	notes     *noteHistory
	switcher  *switcher
	narration *narration
	// panelRows is the narration panel's height the last layout gave
	// the body's rows around; a panel of another height moves them.
	panelRows int
	// chrome is the header's and footer's rows the last layout left the
	// body around: a message that expires with time gives its rows back.
	chrome int
	status status
	// k9sSaid are the k9s keys already explained this session (k9sHint).
	k9sSaid map[string]bool
	// verifying is the comparison with the API server in progress; nil
	// when none runs.
	verifying *verifyRun

	// done is closed when Run ends, so a pending tick gives up at once
	// instead of outliving the program.
	done <-chan struct{}

	// home is the fleet's dashboard while an attached process is shown,
	// detach what stops the attach; nil otherwise (fleet_attach.go).
	home   *Model
	detach func()
}

// New builds the dashboard over src. The only error is a bad key-map file,
// as a sentence naming the file, the line and the fix.
func New(src source.Source, opts Options) (*Model, error) {
	if src == nil {
		return nil, errors.New("tui: no source to show")
	}
	if opts.Refresh <= 0 {
		opts.Refresh = defaultRefresh
	}
	opts.Refresh = max(opts.Refresh, minRefresh)
	if opts.StallThreshold <= 0 {
		opts.StallThreshold = defaultStall
	}
	path := opts.KeyMapPath
	if path == "" {
		path = defaultKeyMapPath()
	}
	km, err := loadKeyMap(path)
	if err != nil {
		return nil, err
	}
	c := &common{
		styles:     newStyles(),
		keys:       km,
		src:        src,
		caps:       capabilitiesOf(src),
		data:       newDataState(),
		stallAfter: opts.StallThreshold,
		loc:        time.Local,
		clock:      time.Now,
		compare:    true,
	}
	m := &Model{c: c, refresh: opts.Refresh, opts: opts}
	m.views = []view{
		viewPipeline:  newPipelineView(c),
		viewQueue:     newQueueView(c),
		viewListeners: newListenersView(c),
		viewStore:     newStoreView(c),
		viewEvents:    newEventsView(c),
	}
	if c.caps.fleet {
		// A fleet opens on its processes, worst first.
		m.views = append(m.views, newFleetView(c))
		m.active = viewFleet
	}
	// Keys the source cannot serve are hidden; pressing one still
	// explains why not.
	km.offerControls(c.caps, nil)
	return m, nil
}

// tickMsg asks for the next pull from the source.
type tickMsg struct{}

// Init pulls the first snapshot at once; the tick takes over from there.
func (m *Model) Init() tea.Cmd { return m.fetchCmd() }

// fetchCmd pulls from the source off the UI goroutine.
func (m *Model) fetchCmd() tea.Cmd {
	src, cursor := m.c.src, m.c.data.cursor
	// The API server's own figures are read only while the Pipeline view,
	// which shows them, is on screen: each reading costs the server.
	var server source.ServerReader
	if m.active == viewPipeline && !m.showHelp {
		server = m.c.caps.server
	}
	from := m.c
	return func() tea.Msg {
		if server != nil {
			server.WantServer()
		}
		msg := fetchData(src, cursor, time.Now())
		msg.from = from
		return msg
	}
}

// tickCmd waits one refresh period, or until the program ends.
func (m *Model) tickCmd() tea.Cmd {
	d, done := m.refresh, m.done
	return func() tea.Msg {
		t := time.NewTimer(d)
		defer t.Stop()
		select {
		case <-t.C:
			return tickMsg{}
		case <-done:
			return nil
		}
	}
}

// Update dispatches: sizes and data to the layout and views, keys to
// keyPress, anything else to the views that asked for it.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.layout()
		return m, nil
	case tea.ColorProfileMsg:
		// Without attributes reverse video is invisible; mark by text.
		m.c.styles.mono = msg.Profile == colorprofile.ASCII || msg.Profile == colorprofile.NoTTY
		return m, nil
	case tickMsg:
		return m, m.fetchCmd()
	case dataMsg:
		if msg.from != nil && msg.from != m.c {
			return m, nil // the source before a ":ctx"; its tick ends here
		}
		return m, m.applyData(msg)
	case controlMsg:
		m.setStatus(msg.text, msg.err)
		return m, nil
	case retargetMsg:
		return m, m.applyRetarget(msg)
	case namespaceAsk:
		return m, m.goToNamespace(msg)
	case contextMsg:
		return m, m.applyContext(msg)
	case attachAskMsg:
		return m, m.attachTo(msg.p)
	case attachedMsg:
		return m, m.applyAttached(msg)
	case fleetSelectMsg:
		return m, m.showInformer(msg.informer)
	case verifyDone:
		m.finishVerify(msg)
		return m, nil
	case stepMsg:
		m.applyStep(msg)
		return m, nil
	case tea.KeyPressMsg:
		m.dismissStatus(msg)
		return m, m.keyPress(msg)
	case tea.PasteMsg:
		if m.switcher != nil {
			var cmd tea.Cmd
			m.switcher.input, cmd = m.switcher.input.Update(msg)
			m.switcher.filter()
			return m, cmd
		}
		return m, m.views[m.active].update(msg)
	}
	var cmds []tea.Cmd
	for _, v := range m.views {
		cmds = append(cmds, v.update(msg))
	}
	return m, tea.Batch(cmds...)
}

func (m *Model) applyData(msg dataMsg) tea.Cmd {
	before := m.c.data.current
	m.c.data.apply(msg)
	// The informer shown may be another, or say what it is only now.
	m.c.keys.offerControls(m.c.caps, m.c.data.snap())
	// A new informer, or notes, header sentences or a footer message that
	// need more or fewer rows, move the body's edges.
	if m.c.data.current != before || len(m.notePanel(0)) != m.panelRows || m.headerRows()+m.footerRows() != m.chrome {
		m.layout()
	}
	return tea.Batch(m.views[m.active].refresh(), m.tickCmd())
}

// keyPress handles the global keys and forwards the rest.
func (m *Model) keyPress(msg tea.KeyPressMsg) tea.Cmd {
	k := m.c.keys
	v := m.views[m.active]
	// While a text input has focus only chorded keys (ctrl+c) stay global.
	typing := v.capturing() || m.switcher != nil
	if key.Matches(msg, k.Quit) && (!typing || msg.Mod != 0) {
		return tea.Quit
	}
	if tooSmall(m.width, m.height) {
		return nil
	}
	if m.switcher != nil {
		return m.switcherKey(msg)
	}
	if m.showHelp {
		m.helpKey(msg)
		return nil
	}
	if m.notes != nil {
		if m.notes.update(msg, k) {
			m.notes = nil
		}
		return nil
	}
	if typing {
		return v.update(msg)
	}
	why := k.whyNot(m.c.caps, m.c.data.snap(), msg)
	switch {
	case key.Matches(msg, k.Help):
		m.showHelp, m.helpOff = true, 0
	case key.Matches(msg, k.Notes) && m.narrated():
		m.notes = newNoteHistory()
	case key.Matches(msg, k.NextView):
		return m.activate((m.active + 1) % viewID(len(m.views)))
	case key.Matches(msg, k.PrevView):
		return m.activate((m.active + viewID(len(m.views)) - 1) % viewID(len(m.views)))
	case key.Matches(msg, k.Fleet) && (m.home != nil || m.c.caps.fleet):
		return m.goHome()
	case key.Matches(msg, k.Switch, k.Commands):
		m.switcher = newSwitcher(m.c)
	case key.Matches(msg, k.Back) && m.verifying != nil:
		m.verifying.cancel()
	case key.Matches(msg, k.Back) && m.narration != nil:
		m.narration = nil
		m.layout()
	case key.Matches(msg, k.Back) && m.home != nil && m.nothingOpen():
		return m.goHome()
	case key.Matches(msg, k.AllNamespaces) && m.c.caps.retarget != nil:
		return m.useNamespace("-A")
	case key.Matches(msg, k.Compare):
		return m.toggleCompare()
	case key.Matches(msg, k.controlKeys()...):
		return m.control(msg)
	case m.k9sHint(msg):
	case why != nil:
		on := why.on
		if on == "" {
			on = sourceName(m.c)
		}
		m.setStatus("", fmt.Errorf("%s does nothing on %s: %s", msg.String(), on, why.why))
	default:
		for i, b := range k.viewKeys() {
			if key.Matches(msg, b) {
				return m.activate(viewID(i))
			}
		}
		if m.storeTakes(msg) || !m.objectKey(msg) {
			return v.update(msg)
		}
	}
	return nil
}

// storeTakes says the Store view's list acts on its object with msg (y,
// d, l, u).
func (m *Model) storeTakes(msg tea.KeyPressMsg) bool {
	sv, ok := m.views[m.active].(*storeView)
	return ok && sv.mode == storeList && key.Matches(msg, m.c.keys.YAML, m.c.keys.Describe, m.c.keys.Logs, m.c.keys.UseNamespace)
}

func (m *Model) switcherKey(msg tea.KeyPressMsg) tea.Cmd {
	s := m.switcher
	cmd, done, chosen, typed := s.update(msg)
	if !done {
		return cmd
	}
	m.switcher = nil
	if typed != "" {
		return m.runTyped(typed, s)
	}
	if chosen == nil {
		return nil
	}
	return m.choose(chosen)
}

// choose runs a command or shows an informer picked in the switcher.
func (m *Model) choose(it *switchItem) tea.Cmd {
	if it.cmd != nil {
		return it.cmd.run(m)
	}
	return m.showInformer(it.name)
}

// showInformer makes the named informer the one every view shows.
func (m *Model) showInformer(name string) tea.Cmd {
	if name == m.c.data.current {
		return nil
	}
	m.c.data.current = name
	m.c.data.selectedListener = ""
	// Chosen while this note stands, it keeps its column (pickCompared).
	m.c.data.pickedUnder = ""
	if len(m.c.data.notes) > 0 {
		m.c.data.pickedUnder = m.c.data.notes[0]
	}
	m.c.keys.offerControls(m.c.caps, m.c.data.snap())
	m.layout()
	return m.views[m.active].refresh()
}

// activate focuses view id and brings it up to date.
func (m *Model) activate(id viewID) tea.Cmd {
	m.active = id
	m.layout()
	return m.views[id].refresh()
}

// layout shares out the rows: header, the focused view, the narration
// panel when open, and the footer.
func (m *Model) layout() {
	m.chrome = m.headerRows() + m.footerRows()
	body := max(m.height-m.chrome, 1)
	m.panelRows = len(m.notePanel(0))
	body -= m.panelRows
	if m.narration != nil {
		// The view keeps 8 rows, 6 when the step also tells the item's
		// journey through the API server: on a short terminal the step is
		// what is being read.
		keep := 8
		if len(m.narration.msg.res.Journey) > 0 {
			keep = 6
		}
		body -= m.narration.height(m.c, m.width, max(body/2, body-keep))
	}
	m.c.width, m.c.height = m.width, max(body, 1)
	for _, v := range m.views {
		v.resize()
	}
}

// narrated reports that the source has said something, so the narration
// key has a history to open; otherwise the key goes to the view.
func (m *Model) narrated() bool {
	return len(m.c.data.notes) > 0 || len(m.c.data.noteLog.entries) > 0
}

// notePanel is the narration panel's lines; while a step is narrated on
// a terminal under 40 rows it keeps to one line, so the step has room.
// spare is how many more rows it may take for status lines it would hide.
func (m *Model) notePanel(spare int) []string {
	h := m.height
	if m.narration != nil && h < 40 {
		h = min(h, 23)
	}
	return notePanelLines(m.c, m.width, h, spare)
}

// trailingBlank counts the blank lines that end a fitted body.
func trailingBlank(lines []string) int {
	n := 0
	for i := len(lines) - 1; i >= 0 && width(lines[i]) == 0; i-- {
		n++
	}
	return n
}

// setStatus shows text, or err, in the footer for statusFor. Either may
// quote the source (an informer's name, a verify result, an error from
// the server), so both are made safe.
func (m *Model) setStatus(text string, err error) {
	m.status = status{text: safe(text), until: m.c.clock().Add(statusFor)}
	if err != nil {
		m.status.text, m.status.bad = safe(err.Error()), true
	}
	m.layout() // a long message takes rows of its own
}

// dismissStatus takes the footer's message away at a key, as it was read:
// the key's own answer, if any, replaces it. The ":" prompt and what is
// typed in it leave the message, since what it lists (contexts, close
// names) is what is being typed.
func (m *Model) dismissStatus(msg tea.KeyPressMsg) {
	if m.status.text == "" || m.switcher != nil || key.Matches(msg, m.c.keys.Switch, m.c.keys.Commands) {
		return
	}
	rows := m.footerRows()
	m.status = status{}
	if m.footerRows() != rows {
		m.layout()
	}
}

// View draws the header, the focused view (or an overlay on it), the
// narration panel and the footer, in exactly the terminal's size.
func (m *Model) View() tea.View {
	var content string
	switch {
	case m.width == 0 || m.height == 0:
		content = ""
	case tooSmall(m.width, m.height):
		content = fit(renderTooSmall(m.c, m.width, m.height), m.width, m.height)
	default:
		content = m.render()
	}
	v := tea.NewView(content)
	v.AltScreen = true
	v.WindowTitle = "informtop"
	if cur := m.c.data.current; cur != "" {
		v.WindowTitle += " · " + cur
	}
	return v
}

func (m *Model) render() string {
	c := m.c
	var body string
	switch {
	case c.caps.fleet && m.active == viewFleet && c.data.ticks > 0:
		// The fleet's list stands without informers: processes without
		// the agent have none until attached.
		body = m.views[m.active].render()
	case len(c.data.snaps) == 0 && c.data.ticks == 0:
		body = c.styles.dim.Render("waiting for the first snapshot from " + safe(c.src.Kind()) + "…")
	case len(c.data.snaps) == 0:
		body = c.styles.warn.Render("the " + safe(c.src.Kind()) + " source has no informers to show")
	default:
		body = m.views[m.active].render()
	}
	switch {
	case m.showHelp:
		// Help replaces the view: text showing through around a big box
		// reads as clutter.
		body = lipgloss.Place(c.width, c.height, lipgloss.Center, lipgloss.Center, m.renderHelp())
	case m.notes != nil:
		body = m.notes.render(c, c.width, c.height)
	case m.switcher != nil:
		body = overlay(body, m.switcher.render(c.width, c.height), c.width, c.height)
	}
	bodyLines := strings.Split(fit(body, m.width, c.height), "\n")
	panel := m.notePanel(0)
	// Rows the view leaves blank at its end go to status lines the
	// panel would hide (a backlog, a count), not to empty space.
	plain := !m.showHelp && m.notes == nil && m.switcher == nil && m.narration == nil
	if blank := trailingBlank(bodyLines); plain && blank > 0 && len(panel) > 0 {
		if more := m.notePanel(blank); len(more) > len(panel) {
			bodyLines = bodyLines[:len(bodyLines)-(len(more)-len(panel))]
			panel = more
		}
	}
	parts := []string{
		fit(headerBlock(c, m.active, m.views, m.height), m.width, m.headerRows()),
		strings.Join(bodyLines, "\n"),
	}
	if len(panel) > 0 {
		parts = append(parts, fit(strings.Join(panel, "\n"), m.width, len(panel)))
	}
	if m.narration != nil {
		nh := m.height - m.headerRows() - m.footerRows() - c.height - len(panel)
		parts = append(parts, fit(m.narration.render(c, m.width, nh), m.width, nh))
	}
	parts = append(parts, fit(strings.Join(footerLines(c, m.footerStatus(), m.footerKeys()), "\n"), m.width, m.footerRows()))
	return strings.Join(parts, "\n")
}
