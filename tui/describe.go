package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
)

// describeTimeout bounds one describe: kubectl's describers make a few
// gets and lists (the object, what refers to it, its events).
const describeTimeout = 30 * time.Second

// describedMsg is kubectl describe's text for one object, or why not.
type describedMsg struct {
	informer, key string
	text          string
	err           error
}

// describeObject opens the describe pane on key and asks the source for
// the text off the drawing goroutine.
func (v *storeView) describeObject(k string) tea.Cmd {
	d := v.c.caps.describe
	if d == nil {
		return nil
	}
	v.text = newTextPane(v.c, "describe "+kubectlObject(v.c, k), "kubectl describe through the API server · esc back")
	v.text.setText(v.c.styles.dim.Render("describing " + k + "…"))
	v.mode = storeDescribe
	informer := v.informer
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), describeTimeout)
		defer cancel()
		text, err := d.Describe(ctx, informer, k)
		return describedMsg{informer: informer, key: k, text: text, err: err}
	}
}

// applyDescribed shows the answer, if the pane that asked is still open.
func (v *storeView) applyDescribed(msg describedMsg) {
	if v.mode != storeDescribe || v.text == nil || msg.informer != v.informer || !strings.HasSuffix(v.text.title, kubectlObject(v.c, msg.key)) {
		return
	}
	if msg.err != nil {
		v.text.setText(v.c.styles.bad.Render(safe(msg.err.Error())))
		return
	}
	v.text.setText(msg.text)
}

// kubectlObject names key of the informer shown as kubectl takes it:
// "pods/web-0 -n shop", "nodes/node-1".
func kubectlObject(c *common, k string) string {
	res := "RESOURCE"
	if s := c.data.snap(); s != nil && s.Name != "" {
		res = safe(s.Name)
	}
	if ns, name, found := strings.Cut(k, "/"); found {
		return fmt.Sprintf("%s/%s -n %s", res, safe(name), safe(ns))
	}
	return res + "/" + safe(k)
}
