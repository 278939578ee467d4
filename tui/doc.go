// Package tui is informtop's dashboard: a Bubble Tea v2 program over any
// source.Source.
//
// Data flow: a tick (Options.Refresh) runs one source.Pull in a command,
// off the UI goroutine; its dataMsg is applied in Update to the shared
// dataState (common.data), which every view reads. Views never call the
// source while drawing: store keys, an object's YAML, index levels, queue
// details and every control run as commands and come back as typed
// messages.
//
// Goroutine rule: Model, common, dataState and the views are touched only
// by Bubble Tea's update goroutine (Update and View never run at once), so
// they have no locks; anything that may block or read the source runs in a
// tea.Cmd and returns a message.
//
// Keys: capabilities.go decides which control keys the current source can
// serve (from the source's Controls) and, of those, which the informer
// shown can (client-go's own informer has no steps or cuts; clientgo.go);
// the others are hidden from the footer and help, and say why when
// pressed.
//
// Files: each view's files share its prefix (pipeline*, queue*, listeners*,
// store*, events*), its compare-mode drawing included (pipeline_compare.go,
// queue_compare.go); compare.go holds what compare mode shares. The rest
// serves every view: the root model (model.go, run.go), the shared context
// and what it is fed (common.go, data.go, history.go, stall.go,
// capabilities.go, controls.go), the header, footer and overlays
// (header.go, footer.go, help.go, switcher.go, narration.go, toosmall.go),
// the key map (keys.go, keyconfig.go), list helpers (scroll.go, filter.go,
// matcher.go, layout.go, ellipsis.go), number and time formats (format.go),
// what client-go's own informer cannot show (clientgo.go) and the styles
// (styles.go).
package tui
