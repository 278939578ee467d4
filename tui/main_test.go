package tui

import (
	"testing"

	"go.uber.org/goleak"
)

// The model runs commands on goroutines and Run drives a Bubble Tea
// program; nothing may outlive a test.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
