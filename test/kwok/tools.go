//go:build tools

// Package kwok only records, for go mod tidy, the main package that build.sh
// builds; it is never compiled.
package kwok

import (
	_ "sigs.k8s.io/kwok/cmd/kwok"
)
