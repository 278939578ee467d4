//go:build !race

package main

// raceOn: see race_test.go.
const raceOn = false
