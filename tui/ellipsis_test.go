package tui

import (
	"strings"
	"testing"
)

func TestMiddleEllipsisKeepsTheEnd(t *testing.T) {
	const goName = "github.com/informtop/informtop/agent_test.TestClientGoInformerNamesTheStuckCode"
	for _, tc := range []struct {
		in   string
		w    int
		want string
	}{
		{"fast", 10, "fast"},
		{"controller-runtime · configmaps #2", 34, "controller-runtime · configmaps #2"},
		// The end survives: " #2" tells it from its sibling.
		{"controller-runtime · configmaps #2", 16, "contr…figmaps #2"},
		{"controller-runtime · configmaps #2", 20, "contro…configmaps #2"},
		// A Go path loses its middle directories first…
		{goName, 62, "github.com/…/agent_test.TestClientGoInformerNamesTheStuckCode"},
		// …then the rest its middle.
		{goName, 40, "github.com/…/agent_te…rNamesTheStuckCode"},
		// Too narrow for the host: the plain cut.
		{goName, 16, "githu…eStuckCode"},
		{"main.(*Controller)", 12, "mai…troller)"},
		// Wide runes count two cells and are never split.
		{"監視コントローラー#2", 9, "監…ラー#2"}, {"監視コントローラー#2", 8, "監…ー#2"},
		{"abcdef", 2, "a…"},
		{"abcdef", 1, "…"},
		{"abcdef", 0, ""},
	} {
		got := middleEllipsis(tc.in, tc.w)
		if got != tc.want {
			t.Errorf("middleEllipsis(%q, %d) = %q, want %q", tc.in, tc.w, got, tc.want)
		}
		if width(got) > tc.w {
			t.Errorf("middleEllipsis(%q, %d) = %q is %d cells wide", tc.in, tc.w, got, width(got))
		}
	}
}

// Every width from 1 up fits and, from 4 cells on, ends as the name does.
func TestMiddleEllipsisFitsEveryWidth(t *testing.T) {
	for _, name := range []string{"controller-runtime · configmaps #2", "github.com/a/b/c/pkg.(*T).OnAdd", "監視コントローラー#2"} {
		for w := 1; w <= width(name)+1; w++ {
			got := middleEllipsis(name, w)
			if width(got) > w {
				t.Fatalf("middleEllipsis(%q, %d) = %q is %d cells wide", name, w, got, width(got))
			}
			last := []rune(name)[len([]rune(name))-1]
			if w >= 4 && !strings.HasSuffix(got, string(last)) {
				t.Errorf("middleEllipsis(%q, %d) = %q lost the end", name, w, got)
			}
		}
	}
}
