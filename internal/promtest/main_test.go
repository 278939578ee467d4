package promtest_test

import (
	"testing"

	"go.uber.org/goleak"
)

// The process waiter of every server and the tests' HTTP connections must
// be gone once the tests end.
func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }
