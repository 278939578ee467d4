package engine

import (
	"os"
	"testing"

	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if which := os.Getenv(envMutationChild); which != "" {
		runMutatingInformer(which) // TestMutationDetectorParity's child process
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}
