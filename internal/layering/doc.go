// Package layering holds no code: its tests check that imports run the
// one way docs/architecture.md draws them, for every package of the
// module, new ones included, so a shortcut (a view that reads the engine,
// an agent that needs Bubble Tea, a source the contract knows by name)
// fails CI instead of creeping in; and that the docs stay short and whole.
package layering
