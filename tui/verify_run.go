package tui

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// verifyRun is a comparison of one informer's cache with the API server
// in progress: a big cache takes a hundred pages and many seconds, so the
// footer counts them as they come and esc cancels.
//
// pages and objects are written by the comparison's goroutine and read
// by View; the rest is fixed once started.
type verifyRun struct {
	informer       string
	started        time.Time
	cancel         context.CancelFunc
	pages, objects atomic.Int64
}

// verifyDone ends a verifyRun with what the control reports.
type verifyDone struct {
	run *verifyRun
	ctl controlMsg
}

// startVerify begins comparing inf's cache with the server.
func (m *Model) startVerify(v source.Verifier, inf string) tea.Cmd {
	if m.verifying != nil {
		m.verifying.cancel() // one comparison at a time: the newest asked
	}
	ctx, cancel := context.WithTimeout(context.Background(), verifyTimeout)
	run := &verifyRun{informer: inf, started: time.Now(), cancel: cancel}
	m.verifying = run
	m.layout() // its progress may need rows of its own
	return func() tea.Msg {
		defer cancel()
		ctx := verify.WithProgress(ctx, func(pages, objects int) {
			run.pages.Store(int64(pages))
			run.objects.Store(int64(objects))
		})
		res, err := v.Verify(ctx, inf)
		switch {
		case errors.Is(err, context.Canceled):
			return verifyDone{run, controlMsg{text: "verify of " + inf + " cancelled"}}
		case err != nil:
			return verifyDone{run, controlMsg{err: fmt.Errorf("could not verify %s: %w", inf, err)}}
		case !res.Equal:
			return verifyDone{run, controlMsg{err: errors.New(inf + ": " + res.Sentence())}}
		}
		return verifyDone{run, controlMsg{text: inf + ": " + res.Sentence()}}
	}
}

// finishVerify takes a comparison's end; one cancelled for a newer one
// says nothing.
func (m *Model) finishVerify(msg verifyDone) {
	if m.verifying != msg.run {
		return
	}
	m.verifying = nil
	m.setStatus(msg.ctl.text, msg.ctl.err)
}

// verifyStatus is the footer's line while a comparison runs.
func (r *verifyRun) status(now time.Time) status {
	text := "verifying " + r.informer + " against the API server (LIST at its resourceVersion)"
	if p := r.pages.Load(); p > 0 {
		text += fmt.Sprintf(": %s listed, %s", humanize.Plural(p, "page"), humanize.Plural(r.objects.Load(), "object"))
	}
	text += " · " + humanize.Duration(now.Sub(r.started)) + " · esc cancels"
	return status{text: safe(text)} // until the comparison ends
}
