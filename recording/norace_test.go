//go:build !race

package recording

// raceOn: see race_test.go.
const raceOn = false
