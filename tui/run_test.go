package tui

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/colorprofile"

	"github.com/informtop/informtop/agent/shared/waitfor"
)

// syncBuffer is the program's output; Bubble Tea writes from its own goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// startProgram runs the dashboard over the fixture in a real Bubble Tea
// program with piped input; it returns the input, the output and Run's result.
func startProgram(t *testing.T, ctx context.Context, env ...string) (io.WriteCloser, *syncBuffer, <-chan error) {
	t.Helper()
	m, err := New(newFixtureSource(), Options{KeyMapPath: filepath.Join(t.TempDir(), "none.yaml"), Refresh: 20 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	in, inW := io.Pipe()
	out := &syncBuffer{}
	done := make(chan error, 1)
	go func() {
		done <- run(ctx, m, tea.WithInput(in), tea.WithOutput(out), tea.WithWindowSize(80, 24),
			tea.WithoutSignals(), tea.WithEnvironment(append([]string{"TERM=xterm-256color", "TTY_FORCE=1"}, env...)))
	}()
	// Closing the input ends Bubble Tea's reader goroutine after the run.
	t.Cleanup(func() { _ = inW.Close() })
	return inW, out, done
}

// liveness bounds how long a test waits for the program to end; it is
// generous because a loaded CI machine runs -race tests of several
// packages at once, and a passing test never waits for it.
const liveness = 20 * time.Second

// shows is a waitfor.Seen condition: the program's output contains text;
// what it saw is the output's tail, where the latest frame is.
func shows(out *syncBuffer, text string) func() (bool, string) {
	return func() (bool, string) {
		s := out.String()
		if strings.Contains(s, text) {
			return true, ""
		}
		return false, fmt.Sprintf("%d bytes of output ending %q", len(s), s[max(0, len(s)-200):])
	}
}

func TestRunQuitsOnQ(t *testing.T) {
	in, out, done := startProgram(t, context.Background())
	waitfor.Seen(t, "the first frame", shows(out, "API server"))
	if _, err := in.Write([]byte("q")); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v after q", err)
		}
	case <-time.After(liveness):
		t.Fatal("q did not end the program")
	}
}

func TestRunEndsWithContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	_, out, done := startProgram(t, ctx)
	waitfor.Seen(t, "the first frame", shows(out, "API server"))
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("run returned %v when its context ended", err)
		}
	case <-time.After(liveness):
		t.Fatal("cancelling the context did not end the program")
	}
}

// sgr finds Select Graphic Rendition sequences.
var sgr = regexp.MustCompile("\x1b\\[([0-9;:]*)m")

// colourParams lists the SGR parameters that set a colour in s.
func colourParams(s string) []string {
	var out []string
	for _, m := range sgr.FindAllStringSubmatch(s, -1) {
		for _, p := range strings.FieldsFunc(m[1], func(r rune) bool { return r == ';' || r == ':' }) {
			n, _ := strconv.Atoi(p)
			if (n >= 30 && n <= 38) || (n >= 40 && n <= 48) || (n >= 90 && n <= 97) || (n >= 100 && n <= 107) {
				out = append(out, m[0])
			}
		}
	}
	return out
}

// TestNoColorEnvironmentDrawsWithoutColour runs the program as on a
// 256-colour terminal (TTY_FORCE) with and without NO_COLOR.
func TestNoColorEnvironmentDrawsWithoutColour(t *testing.T) {
	draw := func(env ...string) string {
		in, out, done := startProgram(t, context.Background(), env...)
		waitfor.Seen(t, "the stalled listener", shows(out, "STALLED"))
		_, _ = in.Write([]byte("q"))
		if err := <-done; err != nil {
			t.Fatal(err)
		}
		return out.String()
	}
	if len(colourParams(draw())) == 0 {
		t.Fatal("a colour terminal got no colour: the NO_COLOR check below would prove nothing")
	}
	out := draw("NO_COLOR=1")
	if c := colourParams(out); len(c) > 0 {
		t.Fatalf("NO_COLOR output still sets colours: %q", c[:min(len(c), 5)])
	}
	if !strings.Contains(out, "⚠") {
		t.Fatal("without colour the stalled marker must still be drawn")
	}
}

func TestMonochromeKeepsMarkersAndSelection(t *testing.T) {
	h := fixture(t, 80, 24)
	h.keys("3")
	var buf bytes.Buffer
	w := &colorprofile.Writer{Forward: &buf, Profile: colorprofile.Ascii}
	if _, err := w.WriteString(h.m.View().Content); err != nil {
		t.Fatal(err)
	}
	mono := buf.String()
	if c := colourParams(mono); len(c) > 0 {
		t.Fatalf("ascii profile kept colours: %q", c)
	}
	if !strings.Contains(mono, "\x1b[7m") {
		t.Fatal("the selection must stay visible as reverse video")
	}
	if !strings.Contains(mono, "⚠ audit") || !strings.Contains(mono, "STALLED") {
		t.Fatal("the stalled listener must be marked in words, not only colour")
	}
	// And the colour screen does use colour, so the check above means something.
	if len(colourParams(h.m.View().Content)) == 0 {
		t.Fatal("the colour screen has no colour at all")
	}
}

func TestRunRefusesANonTerminal(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	defer w.Close()
	saved := os.Stdout
	os.Stdout = w
	err = Run(context.Background(), newFixtureSource(), Options{})
	os.Stdout = saved
	if !errors.Is(err, ErrNotTerminal) || !strings.Contains(err.Error(), "--once --json") {
		t.Fatalf("Run to a pipe returned %v", err)
	}
}
