package tui

import (
	"fmt"
	"strings"
	"time"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/source"
)

// mutationLines describe the cached objects the listener's handler changed,
// shown only once it has changed one: the count stays 0 whenever the
// informer runs without mutation attribution, and 0 would then claim more
// than is known.
func mutationLines(l *source.Listener, row func(string, string) string, st styles, now time.Time) []string {
	m := l.LastCacheMutation
	if l.CacheMutations == 0 || m == nil {
		return nil
	}
	lines := []string{
		row("cache writes", st.warn.Render(fmt.Sprintf("%s: the handler changed cached objects instead of DeepCopies", humanize.CountShort(l.CacheMutations)))),
		row("last write", fmt.Sprintf("%s %s, %s ago", m.Callback, m.Key, humanize.Duration(since(now, m.Time)))),
	}
	for _, f := range m.Fields {
		lines = append(lines, row("", strings.TrimSpace(f)))
	}
	return lines
}
