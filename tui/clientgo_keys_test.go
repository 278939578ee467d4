package tui

import (
	"reflect"
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// pressRefusedOn presses name and checks that it ran nothing and that the
// status line says it does nothing on the informer, and why.
func pressRefusedOn(t *testing.T, h *harness, name, informer, why string) {
	t.Helper()
	_, cmd := h.m.Update(keyMsg(name))
	if cmd != nil {
		t.Errorf("%s returned a command on %s", name, informer)
	}
	want := name + " does nothing on " + informer + ": " + why
	if h.m.status.text != want || !h.m.status.bad {
		t.Errorf("after %s the status reads %q, want %q", name, h.m.status.text, want)
	}
	if !strings.Contains(squash(h.footer()), squash(want)) {
		t.Errorf("the footer does not say why %s does nothing:\n%s", name, h.screen())
	}
}

// On a source that can step and verify, client-go's own informer can
// neither: its step, batch step, resync and verify keys leave the footer
// and the help, which names them with the reason, and say why when
// pressed. The engine's informer of the same source keeps them all.
func TestClientGoInformerWithholdsStepAndVerify(t *testing.T) {
	src := newClientGoCluster()
	src.SetVerify(verify.Result{Equal: true, ResourceVersion: "49446", Objects: 60}, nil)
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)

	if footer := lastLine(h.screen()); !strings.Contains(footer, "space pause") || strings.Contains(footer, "n step") {
		t.Errorf("the footer should offer pause but not step on configmaps: %q", footer)
	}
	help := helpText(h)
	for _, want := range []string{"space pause", "n, b, r unavailable for configmaps: client-go's own informer keeps its queue to itself:",
		"v unavailable for configmaps: client-go's own informer cannot hand over its cache"} {
		if !strings.Contains(help, want) {
			t.Errorf("help lacks %q:\n%s", want, help)
		}
	}
	for _, unwanted := range []string{"n     step", "b     batch step", "r     resync", "verify cache", "pops one item"} {
		if strings.Contains(help, unwanted) {
			t.Errorf("help offers %q on client-go's informer:\n%s", unwanted, help)
		}
	}

	pressRefusedOn(t, h, "n", "configmaps", whyClientGoQueue)
	pressRefusedOn(t, h, "b", "configmaps", whyClientGoQueue)
	pressRefusedOn(t, h, "r", "configmaps", whyClientGoQueue)
	pressRefusedOn(t, h, "v", "configmaps", whyClientGoVerify)
	if h.m.narration != nil || h.m.c.data.paused {
		t.Error("a refused key changed the dashboard's state")
	}
	if calls, asked := src.Ctl.Calls(), src.Asked(); len(calls) != 0 || len(asked) != 0 {
		t.Errorf("client-go's informer reached the controls: calls %v, verify %v", calls, asked)
	}

	// The engine's informer steps and verifies.
	h.keys(":", "p", "o", "d", "s", "enter")
	if help := helpText(h); !strings.Contains(help, "n     step") || strings.Contains(help, "unavailable") {
		t.Errorf("help on pods does not offer step, or still withholds keys:\n%s", help)
	}
	h.keys("n", "v")
	if got, want := src.Ctl.Calls(), []string{"SetPaused(true)", "Step(pods)"}; !reflect.DeepEqual(got, want) {
		t.Errorf("controls called %v on pods, want %v", got, want)
	}
	if got := src.Asked(); !reflect.DeepEqual(got, []string{"pods"}) {
		t.Errorf("verify asked about %v, want pods", got)
	}

	// And back: the keys are withheld again.
	h.keys("esc", ":", "c", "o", "n", "f", "enter")
	pressRefusedOn(t, h, "n", "configmaps", whyClientGoQueue)
}

// attach --verify serves verify but no steps: on client-go's informer v
// gives the informer's reason, n the source's.
func TestAttachedClientGoInformer(t *testing.T) {
	src := newClientGoSource()
	h := newHarness(t, src)
	h.size(160, 48)
	h.frames(fixtureFrames)
	pressRefusedOn(t, h, "v", "configmaps", whyClientGoVerify)
	h.m.Update(keyMsg("n"))
	if want := "n does nothing on attach: 127.0.0.1:6060: " + whyProcessing; h.m.status.text != want {
		t.Errorf("n on attach says %q, want %q", h.m.status.text, want)
	}
	if len(src.asked) != 0 {
		t.Errorf("verify asked about %v", src.asked)
	}
	h.keys(":", "p", "o", "d", "s", "enter", "v")
	if !reflect.DeepEqual(src.asked, []string{"pods"}) {
		t.Errorf("verify asked about %v, want pods", src.asked)
	}
}

// The Queue view of client-go's informer has no rows to show, page or
// filter: a sentence gives its depth and how to see them, offering steps
// only where the source can step.
func TestClientGoQueueView(t *testing.T) {
	src := newClientGoCluster()
	src.Ctl.SetQueueRows("configmaps", []source.QueueItem{{Key: "default/unseen"}})
	h := newHarness(t, src)
	h.size(80, 24)
	h.frames(fixtureFrames)
	h.keys("2")
	assertLinesInOrder(t, h.screen(), []string{
		"RealFIFO · client-go · 3 rows",
		"",
		"client-go's own informer keeps its queue to itself: the agent sees what the",
		"watch brings and what the handlers get (Pipeline, 1), not the rows between.",
	})
	h.keys("j", "/", "enter")
	screen := h.screen()
	if strings.Contains(screen, "KEY") || strings.Contains(screen, "default/unseen") || h.m.views[viewQueue].capturing() {
		t.Errorf("the queue of client-go's informer shows rows or a filter:\n%s", screen)
	}
	if n := h.deliveries(queueRowsMsg{}); n != 0 {
		t.Errorf("client-go's queue was paged %d times", n)
	}
	if footer := lastLine(screen); strings.Contains(footer, "filter") || strings.Contains(footer, "open") {
		t.Errorf("the footer offers keys that do nothing here: %q", footer)
	}

}
