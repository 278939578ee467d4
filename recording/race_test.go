//go:build race

package recording

// raceOn: the race detector slows everything down several times, so
// tests assert no wall-clock bounds under it.
const raceOn = true
