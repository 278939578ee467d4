package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// keyMap holds every binding of the dashboard. Each action has a name (the
// key of the config file) and one binding; one key never serves two actions,
// which loadKeyMap enforces for remapped keys too.
type keyMap struct {
	// Global: handled by the root model whatever view is focused.
	Quit, Help, NextView, PrevView, Switch    key.Binding
	Pipeline, Queue, Listeners, Store, Events key.Binding
	// Fleet shows a fleet's processes, or goes back to them from one
	// attached to.
	Fleet key.Binding

	// Teaching and debugging controls (demo and local engines).
	Pause, Step, Stall, DropWatch, Expire, Resync, Faster, Slower key.Binding
	// Verify compares the informer's cache with the API server.
	Verify key.Binding
	// Retry restarts, after an outage, the informers client-go's backoff
	// holds back.
	Retry key.Binding

	// Navigation, forwarded to the focused view.
	Up, Down, PageUp, PageDown, Top, Bottom, Open, Back, Filter key.Binding

	// View-specific.
	Indexes, TypeFilter, AllInformers key.Binding
	// k9s' object keys: YAML opens the Store's object from the cache,
	// Describe asks kubectl's describers, Logs follows a pod's log; Delete
	// says informtop, read-only, does not.
	YAML, Describe, Logs, Delete key.Binding

	// UseNamespace moves to the namespace under the Store's cursor, and
	// AllNamespaces to every namespace (k9s' u and 0).
	UseNamespace, AllNamespaces key.Binding

	// Sorting, where k9s sorts: the Store by name or age, the Listeners
	// by backlog or latency.
	SortName, SortAge, SortPending, SortLatency key.Binding

	// Notes opens the narration history; Commands lists informers and
	// commands (k9s's ctrl+a); BatchStep pops as client-go's batched pop.
	Notes, Commands, BatchStep key.Binding

	// Compare toggles the side-by-side of informers sharing a resource.
	Compare key.Binding
	// ServerSide folds or expands the API server's watch path in the
	// Pipeline, where the source knows it (the demo).
	ServerSide key.Binding
}

// action ties a config-file name to a binding of the key map.
type action struct {
	name    string
	binding *key.Binding
}

// actions lists every binding in a fixed order: help output and conflict
// messages follow it.
func (k *keyMap) actions() []action {
	return []action{
		{"quit", &k.Quit}, {"help", &k.Help},
		{"next-view", &k.NextView}, {"prev-view", &k.PrevView}, {"switch", &k.Switch},
		{"pipeline", &k.Pipeline}, {"queue", &k.Queue}, {"listeners", &k.Listeners},
		{"store", &k.Store}, {"events", &k.Events}, {"fleet", &k.Fleet},
		{"pause", &k.Pause}, {"step", &k.Step}, {"stall", &k.Stall},
		{"drop-watch", &k.DropWatch}, {"expire", &k.Expire}, {"resync", &k.Resync},
		{"faster", &k.Faster}, {"slower", &k.Slower},
		{"up", &k.Up}, {"down", &k.Down}, {"page-up", &k.PageUp}, {"page-down", &k.PageDown},
		{"top", &k.Top}, {"bottom", &k.Bottom}, {"open", &k.Open}, {"back", &k.Back},
		{"filter", &k.Filter},
		{"indexes", &k.Indexes}, {"type-filter", &k.TypeFilter}, {"all-informers", &k.AllInformers},
		{"yaml", &k.YAML}, {"describe", &k.Describe}, {"logs", &k.Logs}, {"delete", &k.Delete},
		{"use-namespace", &k.UseNamespace}, {"all-namespaces", &k.AllNamespaces},
		{"compare", &k.Compare}, {"server-side", &k.ServerSide},
		{"sort-name", &k.SortName}, {"sort-age", &k.SortAge},
		{"sort-pending", &k.SortPending}, {"sort-latency", &k.SortLatency},
		{"narration", &k.Notes}, {"commands", &k.Commands}, {"batch-step", &k.BatchStep},
		{"verify", &k.Verify}, {"retry", &k.Retry},
	}
}

func bind(desc string, keys ...string) key.Binding {
	return key.NewBinding(key.WithKeys(keys...), key.WithHelp(helpKeys(keys), desc))
}

// helpKeys is how a list of keys is shown in help: "q/ctrl+c".
func helpKeys(keys []string) string {
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += "/"
		}
		switch k {
		case "up":
			k = "↑"
		case "down":
			k = "↓"
		}
		s += k
	}
	return s
}

// defaultKeyMap follows k9s habits where k9s has one.
func defaultKeyMap() *keyMap {
	return &keyMap{
		Quit:      bind("quit", "q", "ctrl+c"),
		Help:      bind("help", "?"),
		NextView:  bind("next view", "tab"),
		PrevView:  bind("previous view", "shift+tab"),
		Switch:    bind("command", ":"),
		Pipeline:  bind("pipeline", "1"),
		Queue:     bind("queue", "2"),
		Listeners: bind("listeners", "3"),
		Store:     bind("store", "4"),
		Events:    bind("events", "5"),
		Fleet:     bind("fleet", "f"),

		Pause:     bind("pause", "space"),
		Step:      bind("step", "n"),
		Stall:     bind("stall listener", "s"),
		DropWatch: bind("drop watch", "w"),
		Expire:    bind("expire RV (410)", "x"),
		Resync:    bind("resync", "r"),
		Faster:    bind("faster", "+", "="),
		Slower:    bind("slower", "-", "_"),

		Up:       bind("up", "k", "up"),
		Down:     bind("down", "j", "down"),
		PageUp:   bind("page up", "pgup", "ctrl+b"),
		PageDown: bind("page down", "pgdown", "ctrl+f"),
		Top:      bind("top", "g", "home"),
		Bottom:   bind("bottom", "G", "end"),
		Open:     bind("open", "enter"),
		Back:     bind("back", "esc"),
		Filter:   bind("filter", "/"),

		Indexes:       bind("indexes", "i"),
		YAML:          bind("yaml", "y"),
		Describe:      bind("describe", "d"),
		Logs:          bind("logs", "l"),
		Delete:        bind("delete", "ctrl+d"),
		UseNamespace:  bind("use its namespace", "u"),
		AllNamespaces: bind("all namespaces", "0"),
		TypeFilter:    bind("event types", "t"),
		AllInformers:  bind("all informers", "a"),

		Compare:    bind("compare", "c"),
		ServerSide: bind("server side: fold/expand", "e"),

		SortName:    bind("sort by name", "O"),
		SortAge:     bind("sort by age", "A"),
		SortPending: bind("sort by pending", "P"),
		SortLatency: bind("sort by latency", "L"),

		Notes:     bind("narration", "h"),
		Commands:  bind("all commands", "ctrl+a"),
		BatchStep: bind("batch step", "b"),
		Verify:    bind("verify cache", "v"),
		Retry:     bind("retry now", "ctrl+r"),
	}
}

// viewKeys are the bindings 1–5 in view order, for switching by number.
func (k *keyMap) viewKeys() []key.Binding {
	return []key.Binding{k.Pipeline, k.Queue, k.Listeners, k.Store, k.Events}
}

// controlKeys are the keys that act on the source (see capabilities).
func (k *keyMap) controlKeys() []key.Binding {
	var out []key.Binding
	for _, b := range k.controlBindings() {
		out = append(out, *b)
	}
	return out
}

func (k *keyMap) controlBindings() []*key.Binding {
	return []*key.Binding{&k.Pause, &k.Step, &k.BatchStep, &k.Stall, &k.DropWatch, &k.Expire, &k.Resync, &k.Faster, &k.Slower, &k.Verify, &k.Retry}
}

// pressedAny reports whether msg is one of the keys of bs, enabled or not.
func pressedAny(msg tea.KeyPressMsg, bs []*key.Binding) bool {
	for _, b := range bs {
		for _, k := range b.Keys() {
			if msg.String() == k {
				return true
			}
		}
	}
	return false
}
