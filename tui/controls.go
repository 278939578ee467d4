package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// verifyTimeout bounds one verify (a paged LIST of the whole resource).
const verifyTimeout = 2 * time.Minute

// controlMsg is the outcome of an operator action, for the status line.
type controlMsg struct {
	text string
	err  error
}

// control runs one teaching/debugging action. The call to the source
// happens in a command, off the UI goroutine, and reports back with a
// controlMsg or stepMsg.
func (m *Model) control(msg tea.KeyPressMsg) tea.Cmd {
	// A key is enabled only when its capability is there (offerControls),
	// so each case below may use its capability.
	caps := m.c.caps
	k := m.c.keys
	inf := m.c.data.current
	do := func(f func() (string, error)) tea.Cmd {
		return func() tea.Msg {
			text, err := f()
			return controlMsg{text: text, err: err}
		}
	}
	switch {
	case key.Matches(msg, k.Pause):
		paused := !m.c.data.paused
		// Show the new state at once; the next snapshot confirms it.
		m.c.data.paused = paused
		m.c.data.pausedBy = ""
		if paused {
			m.c.data.pausedBy = source.PausedByYou
		}
		return do(func() (string, error) {
			if err := caps.proc.SetPaused(paused); err != nil {
				return "", err
			}
			if paused {
				return "processing paused: press " + k.Step.Help().Key + " to step one item", nil
			}
			return "processing resumed", nil
		})
	case key.Matches(msg, k.Step), key.Matches(msg, k.BatchStep):
		if inf == "" {
			return nil
		}
		batch := key.Matches(msg, k.BatchStep)
		wasPaused := m.c.data.paused
		if !wasPaused {
			m.c.data.pausedBy = source.PausedByYou
		}
		m.c.data.paused = true
		return func() tea.Msg {
			out := stepMsg{batch: batch}
			if !wasPaused && !caps.proc.Paused() {
				if err := caps.proc.SetPaused(true); err != nil {
					return stepMsg{err: err, batch: batch}
				}
				out.pausedFirst = true
			}
			if batch {
				out.res, out.err = caps.proc.StepBatch(inf)
			} else {
				out.res, out.err = caps.proc.Step(inf)
			}
			out.res = safeStep(out.res)
			return out
		}
	case key.Matches(msg, k.Stall):
		l := m.c.data.selectedListener
		if l == "" {
			m.setStatus("", fmt.Errorf("select a listener first: %s opens the Listeners view", k.Listeners.Help().Key))
			return nil
		}
		return do(func() (string, error) {
			stalled, err := caps.stall.ToggleStall(inf, l)
			if err != nil {
				return "", err
			}
			if stalled {
				return "listener " + l + " stalled: its next callback blocks until you press " + k.Stall.Help().Key + " again", nil
			}
			return "listener " + l + " resumed", nil
		})
	case key.Matches(msg, k.DropWatch):
		return do(func() (string, error) {
			return "watch dropped: the reflector re-watches from its last resourceVersion", caps.faults.DropWatch()
		})
	case key.Matches(msg, k.Expire):
		return do(func() (string, error) {
			return "history expired: the next watch gets 410 Gone and the reflector relists", caps.faults.ExpireHistory()
		})
	case key.Matches(msg, k.Resync):
		return do(func() (string, error) {
			return "resync forced on " + inf, caps.proc.Resync(inf)
		})
	case key.Matches(msg, k.Retry):
		return do(func() (string, error) {
			ctx, cancel := context.WithTimeout(context.Background(), retryTimeout)
			defer cancel()
			restarted, err := caps.retry.RetryNow(ctx)
			return retriedText(restarted), err
		})
	case key.Matches(msg, k.Verify):
		if inf == "" {
			return nil
		}
		return m.startVerify(caps.verify, inf)
	case key.Matches(msg, k.Faster), key.Matches(msg, k.Slower):
		step := 1
		if key.Matches(msg, k.Slower) {
			step = -1
		}
		return do(func() (string, error) {
			r, err := caps.work.AdjustRate(step)
			return "workload: " + changesPerSecond(r), err
		})
	}
	return nil
}

// retryTimeout bounds one retry-now: a check that the server answers, and
// an access check per informer restarted.
const retryTimeout = 30 * time.Second

// retriedText says what a retry-now did.
func retriedText(restarted []string) string {
	if len(restarted) == 0 {
		return "nothing to retry: no informer is waiting out client-go's backoff"
	}
	return "restarted the list and watch of " + strings.Join(restarted, ", ") + " now, instead of after client-go's backoff"
}

// changesPerSecond is a workload rate in words: "1 change/s", "12 changes/s".
func changesPerSecond(r float64) string {
	n := humanize.RateNumber(r)
	if n == "1" {
		return "1 change/s"
	}
	return n + " changes/s"
}

// applyStep opens or updates the narration panel with a step's outcome.
func (m *Model) applyStep(msg stepMsg) {
	if m.narration == nil {
		m.narration = &narration{}
	}
	m.narration.msg = msg
	m.narration.steps++
	if msg.pausedFirst {
		m.c.data.paused = true
	}
	m.layout()
}
