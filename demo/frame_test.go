package demo

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/informtop/informtop/tui"
)

// dashboard is the real dashboard over a demo at one terminal size, fed
// the way the program feeds it: a pull from the source, then a redraw.
type dashboard struct {
	t    *testing.T
	m    *tui.Model
	w, h int
}

func newDashboard(t *testing.T, d *Demo, w, h int) *dashboard {
	t.Helper()
	m, err := tui.New(d, tui.Options{KeyMapPath: filepath.Join(t.TempDir(), "absent.yaml")})
	if err != nil {
		t.Fatal(err)
	}
	m.Update(tea.WindowSizeMsg{Width: w, Height: h})
	return &dashboard{t: t, m: m, w: w, h: h}
}

// pull takes one frame from the source, as a tick does. Init is the
// model's fetch of the next frame; the commands Update returns (the next
// tick) are the program's business, not the test's.
func (b *dashboard) pull() {
	if cmd := b.m.Init(); cmd != nil {
		b.m.Update(cmd())
	}
}

// key presses one printable key and lets the view finish what the key
// started (the Store view reads the cache in a command of its own).
func (b *dashboard) key(k string) {
	r := []rune(k)[0]
	_, cmd := b.m.Update(tea.KeyPressMsg{Code: r, Text: k})
	b.run(cmd, 2)
}

// run runs cmd as the program would and feeds its messages back, depth
// rounds deep; a command still waiting after a second (the next tick) is
// left.
func (b *dashboard) run(cmd tea.Cmd, depth int) {
	if cmd == nil || depth == 0 {
		return
	}
	msgs := make(chan tea.Msg, 1)
	go func() { msgs <- cmd() }()
	select {
	case msg := <-msgs:
		if batch, ok := msg.(tea.BatchMsg); ok {
			for _, c := range batch {
				b.run(c, depth)
			}
			return
		}
		if msg != nil {
			_, next := b.m.Update(msg)
			b.run(next, depth-1)
		}
	case <-time.After(time.Second):
	}
}

// screen is the frame as a user reads it, without colour.
func (b *dashboard) screen() string { return ansi.Strip(b.m.View().Content) }

// view switches to view n (1–5) and returns the screen.
func (b *dashboard) view(n int) string {
	b.key(fmt.Sprint(n))
	return b.screen()
}

// noteFrames are the screens shown while one note stood.
type noteFrames struct {
	step  string
	notes []string
	// script is the scenario's own lines of the note, without the live
	// status lines under them.
	script []string
	// views are the screens of views 1–5 at 80×24, index 0 for view 1;
	// wide the same at 160×48.
	views, wide [5]string
}

// runFrames plays a scenario with the dashboard open at 80×24 and 160×48
// and returns, for every note the script showed, the five views as drawn
// right after it appeared (the script waits meanwhile).
func runFrames(t *testing.T, d *Demo) []noteFrames {
	t.Helper()
	type held struct {
		step   string
		script []string
		ack    chan struct{}
	}
	reached := make(chan held)
	stop := make(chan struct{})
	defer close(stop)
	last := ""
	d.noteHook = func(name string) {
		notes := d.Notes()
		if len(notes) == 0 || notes[0] == last {
			return
		}
		last = notes[0]
		d.mu.Lock()
		script := slices.Clone(d.notes)
		d.mu.Unlock()
		ack := make(chan struct{})
		select {
		case reached <- held{name, script, ack}:
			<-ack
		case <-stop:
		}
	}
	ended := make(chan struct{})
	go func() {
		defer close(ended)
		_ = d.WaitScriptEnd(t.Context())
	}()
	start(t, d)
	small, wide := newDashboard(t, d, 80, 24), newDashboard(t, d, 160, 48)
	tick := time.NewTicker(100 * time.Millisecond)
	defer tick.Stop()
	deadline := time.After(3 * testTimeout)
	var out []noteFrames
	for {
		select {
		case <-tick.C:
			small.pull()
			wide.pull()
		case h := <-reached:
			// One frame for every view, as a user flicking through
			// them would see within a refresh.
			f := noteFrames{step: h.step, notes: d.Notes(), script: h.script}
			small.pull()
			wide.pull()
			for i := range 5 {
				f.views[i] = small.view(i + 1)
				f.wide[i] = wide.view(i + 1)
			}
			small.key("1")
			wide.key("1")
			out = append(out, f)
			close(h.ack)
		case <-ended:
			return out
		case <-deadline:
			t.Fatalf("the script did not end within %v; notes so far %d", 3*testTimeout, len(out))
		}
	}
}

// TestDumpFrames writes every note's screens to $INFORMTOP_FRAMES (a
// directory), for a person to read; skipped without it.
func TestDumpFrames(t *testing.T) {
	dir := os.Getenv("INFORMTOP_FRAMES")
	if dir == "" {
		t.Skip("INFORMTOP_FRAMES not set")
	}
	for _, name := range scenarioNames() {
		if only := os.Getenv("INFORMTOP_FRAMES_SCENARIO"); only != "" && !slices.Contains(strings.Split(only, ","), name) {
			continue
		}
		t.Run(name, func(t *testing.T) {
			d := newDemo(t, Config{Scenario: name, Seed: 3, TimeScale: 0.05, Objects: frameObjects(name)})
			var b strings.Builder
			for _, f := range runFrames(t, d) {
				for i, v := range f.views {
					fmt.Fprintf(&b, "=== %s · %s · view %d · 80x24\n%s\n", name, f.step, i+1, v)
				}
				for i, v := range f.wide {
					fmt.Fprintf(&b, "=== %s · %s · view %d · 160x48\n%s\n", name, f.step, i+1, v)
				}
			}
			if err := os.WriteFile(filepath.Join(dir, name+".txt"), []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// frameObjects keeps initial-sync's list short enough for a test.
func frameObjects(name string) int {
	if name == "initial-sync" {
		return 3000
	}
	return 0
}
