package tui

import (
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// harness drives a Model without a terminal: every command is run at once
// on the test goroutine and its message fed back, as the program would.
// Ticks end immediately because done is closed.
type harness struct {
	t   testing.TB
	m   *Model
	src source.Source
	// ctl answers src's capabilities; nil for a read-only source.
	ctl  *sourcetest.Controller
	quit bool
	// delivered counts the messages Update was given, by type.
	delivered map[reflect.Type]int
	// hold, when set, keeps back the messages it picks (an answer still
	// in flight) in held until release delivers them.
	hold func(tea.Msg) bool
	held []tea.Msg
	// wall is the dashboard's wall clock (common.clock): it moves only
	// when the test advances it.
	wall time.Time
}

// advance moves the dashboard's wall clock on by d.
func (h *harness) advance(d time.Duration) { h.wall = h.wall.Add(d) }

func newHarness(t testing.TB, src source.Source) *harness {
	t.Helper()
	m, err := New(src, Options{KeyMapPath: filepath.Join(t.TempDir(), "absent.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	m.c.loc = time.UTC
	closed := make(chan struct{})
	close(closed)
	m.done = closed
	h := &harness{t: t, m: m, src: src, ctl: controlsOf(src), wall: t0}
	m.c.clock = func() time.Time { return h.wall }
	return h
}

// controlsOf finds the fake controls behind a test source.
func controlsOf(src source.Source) *sourcetest.Controller {
	switch s := src.(type) {
	case *controlledSource:
		return s.ctl
	case *tableSource:
		return s.ctl
	case *sourcetest.Cluster:
		return s.Ctl
	case *sourcetest.Demo:
		return s.Controller
	}
	return nil
}

// send delivers msg and runs the resulting commands to completion.
func (h *harness) send(msg tea.Msg) {
	h.t.Helper()
	queue := []tea.Msg{msg}
	for len(queue) > 0 {
		msg := queue[0]
		queue = queue[1:]
		if msg == nil {
			continue
		}
		if _, ok := msg.(tea.QuitMsg); ok {
			h.quit = true
			continue
		}
		if _, ok := msg.(tickMsg); ok {
			continue // the harness decides when data arrives
		}
		if h.hold != nil && h.hold(msg) {
			h.held = append(h.held, msg)
			continue
		}
		if h.delivered == nil {
			h.delivered = map[reflect.Type]int{}
		}
		h.delivered[reflect.TypeOf(msg)]++
		_, cmd := h.m.Update(msg)
		queue = append(queue, h.run(cmd)...)
	}
}

func (h *harness) run(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	msg := cmd()
	if b, ok := msg.(tea.BatchMsg); ok {
		var out []tea.Msg
		for _, c := range b {
			out = append(out, h.run(c)...)
		}
		return out
	}
	return []tea.Msg{msg}
}

// release delivers the messages held back so far, in order; what they
// lead to is held again when hold picks it.
func (h *harness) release() {
	h.t.Helper()
	held := h.held
	h.held = nil
	if h.delivered == nil {
		h.delivered = map[reflect.Type]int{}
	}
	for _, msg := range held {
		h.delivered[reflect.TypeOf(msg)]++
		_, cmd := h.m.Update(msg)
		for _, m := range h.run(cmd) {
			h.send(m)
		}
	}
}

// deliveries is how many messages of example's type Update was given.
func (h *harness) deliveries(example tea.Msg) int { return h.delivered[reflect.TypeOf(example)] }

// size sends a window size.
func (h *harness) size(w, ht int) { h.send(tea.WindowSizeMsg{Width: w, Height: ht}) }

// frames delivers n frames of the source, moving a fake on to its next
// frame after each.
func (h *harness) frames(n int) {
	for i := 0; i < n; i++ {
		h.send(fetchData(h.src, h.m.c.data.cursor, t0))
		if f, ok := h.src.(interface{ Advance() }); ok {
			f.Advance()
		}
	}
}

// keys types each key in turn; names are as Bubble Tea prints them.
func (h *harness) keys(names ...string) {
	for _, n := range names {
		h.send(keyMsg(n))
	}
}

// keyMsg builds the key press Bubble Tea would deliver for name.
func keyMsg(name string) tea.KeyPressMsg {
	special := map[string]rune{
		"enter": tea.KeyEnter, "esc": tea.KeyEscape, "tab": tea.KeyTab, "space": tea.KeySpace,
		"up": tea.KeyUp, "down": tea.KeyDown, "pgup": tea.KeyPgUp, "pgdown": tea.KeyPgDown,
		"home": tea.KeyHome, "end": tea.KeyEnd, "backspace": tea.KeyBackspace,
	}
	var mod tea.KeyMod
	base := name
	for _, p := range []struct {
		prefix string
		mod    tea.KeyMod
	}{{"ctrl+", tea.ModCtrl}, {"alt+", tea.ModAlt}, {"shift+", tea.ModShift}} {
		if strings.HasPrefix(base, p.prefix) && len(base) > len(p.prefix) {
			mod |= p.mod
			base = base[len(p.prefix):]
		}
	}
	if r, ok := special[base]; ok {
		k := tea.KeyPressMsg{Code: r, Mod: mod}
		if r == tea.KeySpace {
			k.Text = " "
		}
		return k
	}
	r := []rune(base)[0]
	if mod != 0 {
		return tea.KeyPressMsg{Code: r, Mod: mod}
	}
	return tea.KeyPressMsg{Code: r, Text: base}
}

// screen is the current frame without colours.
func (h *harness) screen() string {
	return ansi.Strip(h.m.View().Content)
}

// footer is the footer as read: a message wrapped above the key hints
// joined into one line with them.
func (h *harness) footer() string {
	lines := strings.Split(h.screen(), "\n")
	rows := lines[len(lines)-h.m.footerRows():]
	for i, l := range rows {
		rows[i] = strings.TrimSpace(l)
	}
	return strings.Join(rows, " ")
}

// fixture returns a harness at w×h with all fixture frames delivered.
func fixture(t testing.TB, w, ht int) *harness {
	h := newHarness(t, newFixtureSource())
	h.size(w, ht)
	h.frames(fixtureFrames)
	return h
}
