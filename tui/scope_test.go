package tui

import (
	"strings"
	"testing"

	"github.com/informtop/informtop/agent/source/sourcetest"
)

// The header and the ":" prompt say where the user is, as k9s does:
// context, resource, namespace ("all" for every one) and object count;
// an empty cache says where it looked.
func TestScopeIsAlwaysVisible(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		cfg := clusterConfig()
		for _, frame := range cfg.Frames {
			for i := range frame {
				if frame[i].Name == "pods" {
					frame[i].Namespace = "shop"
				}
				if frame[i].Name == "secrets" {
					frame[i].Store.Objects = 0
				}
			}
		}
		cfg.Stores["secrets"] = sourcetest.NewStore(1)
		h := newHarness(t, sourcetest.New(cfg))
		h.size(sz[0], sz[1])
		h.frames(fixtureFrames)
		first := strings.Split(h.screen(), "\n")[0]
		want := "prod › pods(shop)[60]"
		if !strings.Contains(first, want) || !strings.Contains(first, "synced") {
			t.Errorf("%v: the header does not say where, with the sync state: %q", sz, first)
		}
		h.keys(":")
		if !strings.Contains(h.screen(), "pods(shop)[60] · informers and commands") {
			t.Errorf("%v: the prompt does not say where:\n%s", sz, h.screen())
		}
		h.typeText("secrets")
		h.keys("enter", "4")
		assertFits(t, h.screen(), sz[0], sz[1])
		if first := strings.Split(h.screen(), "\n")[0]; !strings.Contains(first, "secrets(all)[0]") {
			t.Errorf("%v: after switching, the header says %q", sz, first)
		}
		if s := squash(h.screen()); !strings.Contains(s, squash("no secrets in every namespace of context prod: the cache is empty")) {
			t.Errorf("%v: the empty Store does not say where it looked:\n%s", sz, h.screen())
		}
	}
}
