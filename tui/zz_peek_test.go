package tui

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// TestPeek prints screens for a look: PEEK="80x24:keys,keys".
func TestPeek(t *testing.T) {
	spec := os.Getenv("PEEK")
	if spec == "" {
		t.Skip()
	}
	for _, one := range strings.Split(spec, ";") {
		sz, keys, _ := strings.Cut(one, ":")
		var w, h int
		fmt.Sscanf(sz, "%dx%d", &w, &h)
		hh := fixture(t, w, h)
		if keys != "" {
			hh.keys(strings.Split(keys, ",")...)
		}
		fmt.Println("=== " + one)
		fmt.Println(hh.screen())
	}
}
