package tui

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/sahilm/fuzzy"

	"github.com/informtop/informtop/agent/source"
)

// retargetTimeout bounds one ":svc" or ":ns shop": discovery, the access
// checks and building the informers (listing happens afterwards).
const retargetTimeout = 30 * time.Second

// typedCommand is a ":" line that names no informer, view or command
// whole, read as k9s reads them: a resource to watch ("svc",
// "deploy -n shop", "pods -A"), "ns NAME" or "ctx NAME".
type typedCommand struct {
	word  string
	arg   string // ns's or ctx's argument
	where source.Where
}

// parseTyped reads line; a flag it does not know is an error sentence.
func parseTyped(line string) (typedCommand, error) {
	fields := strings.Fields(line)
	var t typedCommand
	if len(fields) == 0 {
		return t, nil
	}
	t.word = strings.ToLower(fields[0])
	for i := 1; i < len(fields); i++ {
		f := fields[i]
		switch {
		case f == "-A" || f == "--all-namespaces":
			t.where.All = true
		case f == "-n" || f == "--namespace":
			if i+1 == len(fields) {
				return t, fmt.Errorf("%s needs a namespace after it: :%s %s shop", f, t.word, f)
			}
			i++
			t.where.Namespace = fields[i]
		case strings.HasPrefix(f, "--namespace="):
			t.where.Namespace = strings.TrimPrefix(f, "--namespace=")
		case strings.HasPrefix(f, "-n") && len(f) > 2:
			t.where.Namespace = f[2:]
		case strings.HasPrefix(f, "-"):
			return t, fmt.Errorf("%q is not a flag informtop takes after a resource: use -n NAMESPACE or -A", f)
		case t.arg == "":
			t.arg = f
		default:
			return t, fmt.Errorf("%q is one word too many: type :RESOURCE [-n NAMESPACE | -A], :ns NAMESPACE or :ctx CONTEXT", f)
		}
	}
	if t.where.All && t.where.Namespace != "" {
		return t, fmt.Errorf("-A and -n %s ask for two different things: keep one", t.where.Namespace)
	}
	return t, nil
}

// retargetMsg reports a change of what the source watches.
type retargetMsg struct {
	informer string // to show now; "" keeps the one shown
	text     string
	err      error
}

// runTyped runs a ":" line that is not a name typed whole.
func (m *Model) runTyped(line string, s *switcher) tea.Cmd {
	t, err := parseTyped(line)
	if err != nil {
		m.setStatus("", err)
		return nil
	}
	switch t.word {
	case "ctx", "context", "contexts":
		return m.useContext(t.arg)
	case "ns", "namespace":
		if t.arg != "" {
			return m.useNamespace(t.arg)
		}
	}
	if t.arg != "" {
		m.setStatus("", fmt.Errorf("%q is one word too many: type :RESOURCE [-n NAMESPACE | -A], :ns NAMESPACE or :ctx CONTEXT", t.arg))
		return nil
	}
	// A word that starts one name only is that name (":lis", ":nar").
	if it := s.uniquePrefix(t.word); it != nil && t.where == (source.Where{}) {
		return m.choose(it)
	}
	re := m.c.caps.retarget
	if re == nil {
		// Without resources to watch, a filter that leaves one row means it.
		if len(s.matches) == 1 && t.where == (source.Where{}) {
			return m.choose(&s.items[s.matches[0]])
		}
		m.setStatus("", unknownCommand(line, s))
		return nil
	}
	word, where := t.word, t.where
	m.setStatus("watching "+word+"…", nil)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), retargetTimeout)
		defer cancel()
		name, err := re.Watch(ctx, word, where)
		if err != nil {
			return retargetMsg{err: err}
		}
		return retargetMsg{informer: name, text: "watching " + name + whereText(where) + ": it lists, then follows the watch"}
	}
}

// useNamespace moves the namespaced informers to ns ("-A" or "all": every
// namespace).
func (m *Model) useNamespace(ns string) tea.Cmd {
	re := m.c.caps.retarget
	if re == nil {
		m.setStatus("", fmt.Errorf(":ns changes the namespace a cluster's informers watch; %s does not watch a cluster from here", sourceName(m.c)))
		return nil
	}
	where := source.Where{Namespace: ns}
	if ns == "-A" || ns == "all" || ns == "--all-namespaces" {
		where = source.Where{All: true}
	}
	m.setStatus("moving to namespace "+ns+"…", nil)
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), retargetTimeout)
		defer cancel()
		if err := re.UseNamespace(ctx, where); err != nil {
			return retargetMsg{err: err}
		}
		return retargetMsg{text: "now watching" + whereText(where) + ": namespaced informers list again there; cluster-scoped ones keep running"}
	}
}

func whereText(w source.Where) string {
	switch {
	case w.All:
		return " in every namespace"
	case w.Namespace != "":
		return " in " + w.Namespace
	}
	return ""
}

// applyRetarget shows the outcome, and the informer asked for.
func (m *Model) applyRetarget(msg retargetMsg) tea.Cmd {
	m.setStatus(msg.text, msg.err)
	if msg.err != nil || msg.informer == "" || msg.informer == m.c.data.current {
		return nil
	}
	m.c.data.awaited = msg.informer
	return m.showInformer(msg.informer)
}

// unknownCommand says line names nothing and lists the closest names.
func unknownCommand(line string, s *switcher) error {
	var close []string
	for _, f := range closeMatches(strings.Fields(line)[0], s.targets) {
		close = append(close, s.items[f.Index].name)
	}
	msg := fmt.Sprintf("no informer, view or command is called %q", line)
	if len(close) > 0 {
		msg += "; close ones: " + strings.Join(close, ", ")
	}
	return fmt.Errorf("%s (ctrl+a lists them all)", msg)
}

// contextMsg reports a ":ctx NAME": the new source, or why not.
type contextMsg struct {
	name string
	src  source.Source
	err  error
}

// useContext lists the kubeconfig's contexts, or connects to one.
func (m *Model) useContext(name string) tea.Cmd {
	if m.opts.Contexts == nil || m.opts.UseContext == nil {
		m.setStatus("", fmt.Errorf(":ctx connects to another kubeconfig context; %s is not a cluster informtop connected to", sourceName(m.c)))
		return nil
	}
	names, current := m.opts.Contexts()
	if name == "" {
		m.setStatus(fmt.Sprintf("contexts: %s (in use: %s); :ctx NAME switches", strings.Join(names, ", "), current), nil)
		return nil
	}
	if name == current {
		m.setStatus("already on context "+name, nil)
		return nil
	}
	if !slices.Contains(names, name) {
		msg := fmt.Sprintf("the kubeconfig has no context %q", name)
		if close := closeNames(name, names); len(close) > 0 {
			msg += "; close ones: " + strings.Join(close, ", ")
		}
		m.setStatus("", fmt.Errorf("%s (:ctx lists them all)", msg))
		return nil
	}
	m.setStatus("connecting to context "+name+"…", nil)
	use := m.opts.UseContext
	return func() tea.Msg {
		ctx, cancel := context.WithTimeout(context.Background(), retargetTimeout)
		defer cancel()
		src, err := use(ctx, name)
		return contextMsg{name: name, src: src, err: err}
	}
}

// applyContext shows the new context's source in place of the old: a
// fresh dashboard on the same screen, in the same view.
func (m *Model) applyContext(msg contextMsg) tea.Cmd {
	if msg.err != nil {
		m.setStatus("", fmt.Errorf("context %s could not be used, so informtop stays on this one: %w", msg.name, msg.err))
		return nil
	}
	next, err := New(msg.src, m.opts)
	if err != nil {
		m.setStatus("", err)
		return nil
	}
	if m.verifying != nil {
		m.verifying.cancel() // it compares the old context's cache
	}
	next.width, next.height, next.done, next.active = m.width, m.height, m.done, m.active
	next.c.loc, next.c.styles.mono, next.c.clock, next.k9sSaid = m.c.loc, m.c.styles.mono, m.c.clock, m.k9sSaid
	m.closePanes() // a log followed on the old context ends with it
	// The program holds m: it takes the new dashboard's state in place.
	*m = *next
	m.layout()
	m.setStatus("switched to context "+msg.name, nil)
	return m.fetchCmd()
}

// closeMatches are the best three fuzzy matches of q among names.
func closeMatches(q string, names []string) fuzzy.Matches {
	ms := fuzzy.Find(q, names)
	return ms[:min(len(ms), 3)]
}

// closeNames are closeMatches' names.
func closeNames(q string, names []string) []string {
	var out []string
	for _, m := range closeMatches(q, names) {
		out = append(out, m.Str)
	}
	return out
}
