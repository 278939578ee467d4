// Package layering holds no code: its test checks that imports run the one
// way README's layout and SPEC §2 say they do, so a shortcut (a source that
// imports the UI, an agent that needs Bubble Tea) fails CI instead of
// creeping in.
package layering
