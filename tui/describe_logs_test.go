package tui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// fakeReads answers describe and logs as a cluster would, and records
// what was asked.
type fakeReads struct {
	mu        sync.Mutex
	described []string
	opts      []source.LogOptions
	closed    int
	log       string
	fail      error
}

func (f *fakeReads) Describe(_ context.Context, informer, key string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.described = append(f.described, informer+" "+key)
	if f.fail != nil {
		return "", f.fail
	}
	return fmt.Sprintf("Name:         %s\nNamespace:    default\nLabels:       app=web\n\x1b]0;owned\x07Status:       Running\nEvents:\n  Type    Reason   Age   From     Message\n  ----    ------   ----  ----     -------\n  Normal  Pulled   70s   kubelet  Container image pulled\n", key), nil
}

func (f *fakeReads) Containers(_ context.Context, _, pod string) ([]string, error) {
	if pod == "web-2" {
		return []string{"init-db", "app"}, nil
	}
	return []string{"app"}, nil
}

type closer struct {
	io.Reader
	f *fakeReads
}

func (c closer) Close() error { c.f.mu.Lock(); c.f.closed++; c.f.mu.Unlock(); return nil }

func (f *fakeReads) Logs(_ context.Context, _, _ string, opts source.LogOptions) (io.ReadCloser, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.opts = append(f.opts, opts)
	return closer{strings.NewReader(f.log), f}, nil
}

// clusterReads is the fixture with describe, logs and :ns, as a cluster
// has them, and a namespaces informer.
func clusterReads(t *testing.T, w, ht int) (*harness, *fakeReads, *fakeRetarget) {
	t.Helper()
	reads := &fakeReads{log: "starting\n\x1b[2Jlistening on :8080\npartial"}
	re := &fakeRetarget{}
	cfg := clusterConfig()
	for i, frame := range cfg.Frames {
		ns := frame[len(frame)-1]
		ns.Name, ns.Resource, ns.Namespace = "namespaces", "namespaces", ""
		cfg.Frames[i] = append(frame, ns)
	}
	cfg.Stores["namespaces"] = sourcetest.NewStore(1, sourcetest.Item{Key: "demo"}, sourcetest.Item{Key: "shop"})
	src := source.Decorate(newControlledSource(cfg, &sourcetest.Controller{}), source.Decoration{Controls: func(c source.Controls) source.Controls {
		c.Describe, c.Logs, c.Retarget = reads, reads, re
		c.Stalling = nil // a cluster without simulated listeners
		return c
	}})
	h := newHarness(t, src)
	h.size(w, ht)
	h.frames(fixtureFrames)
	return h, reads, re
}

// d describes the object under the cursor with the source's describer
// (kubectl's, on a cluster), off the drawing goroutine, made safe for the
// terminal, scrollable and left with esc.
func TestDescribeKey(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		h, reads, _ := clusterReads(t, sz[0], sz[1])
		h.keys("4", "j", "d")
		screen := h.screen()
		assertFits(t, screen, sz[0], sz[1])
		if len(reads.described) != 1 || reads.described[0] != "pods default/web-1" {
			t.Fatalf("%v: described %q", sz, reads.described)
		}
		for _, want := range []string{"describe pods/web-1 -n default", "Name:         default/web-1", "Normal  Pulled   70s"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%v: the describe pane lacks %q:\n%s", sz, want, screen)
			}
		}
		if strings.Contains(screen, "\x1b]0;") {
			t.Errorf("%v: a control sequence from the server reached the terminal", sz)
		}
		for range 10 {
			_ = h.m.View()
		}
		if len(reads.described) != 1 {
			t.Errorf("%v: drawing described again: %q", sz, reads.described)
		}
		h.keys("esc")
		if sv := h.m.views[viewStore].(*storeView); sv.mode != storeList {
			t.Errorf("%v: esc left mode %d", sz, sv.mode)
		}
		reads.fail = errors.New("pods \"web-1\" is forbidden: User \"dev\" cannot get resource \"pods\"")
		h.keys("d")
		if s := h.screen(); !strings.Contains(squash(s), squash(`cannot get resource "pods"`)) {
			t.Errorf("%v: a failed describe does not say why:\n%s", sz, s)
		}
	}
}

// l follows a pod's log through the source: the only container at once,
// else the one picked; lines are made safe; esc closes the stream.
func TestLogsKey(t *testing.T) {
	for _, sz := range [][2]int{{80, 24}, {160, 48}} {
		h, reads, _ := clusterReads(t, sz[0], sz[1])
		h.keys("4", "l") // default/web-0: one container
		screen := h.screen()
		assertFits(t, screen, sz[0], sz[1])
		if len(reads.opts) != 1 || reads.opts[0] != (source.LogOptions{Container: "app", Follow: true, TailLines: logTail}) {
			t.Fatalf("%v: logs asked with %+v", sz, reads.opts)
		}
		for _, want := range []string{"logs pods/web-0 -n default", "container app", "starting", "listening on :8080", "partial", "the log ended"} {
			if !strings.Contains(screen, want) {
				t.Errorf("%v: the logs pane lacks %q:\n%s", sz, want, screen)
			}
		}
		if strings.Contains(screen, "\x1b[2J") {
			t.Errorf("%v: a control sequence from the log reached the terminal", sz)
		}
		if reads.closed != 1 {
			t.Errorf("%v: the ended stream was closed %d times", sz, reads.closed)
		}
		h.keys("esc")
		sv := h.m.views[viewStore].(*storeView)
		if sv.mode != storeList {
			t.Fatalf("%v: esc left mode %d", sz, sv.mode)
		}
		// web-2 has an init container: pick, then follow.
		for sv.selectedKey() != "default/web-2" {
			h.keys("j")
		}
		h.keys("l")
		if s := h.screen(); !strings.Contains(s, "init-db") || !strings.Contains(s, "pick a container") {
			t.Fatalf("%v: no container to pick:\n%s", sz, s)
		}
		h.keys("j", "enter")
		if last := reads.opts[len(reads.opts)-1]; last.Container != "app" {
			t.Errorf("%v: picked container asked as %+v", sz, last)
		}
	}
}

// l on another resource, or a source without logs, says what to do.
func TestLogsKeyElsewhere(t *testing.T) {
	h, _, _ := clusterReads(t, 80, 24)
	h.keys(":")
	h.typeText("secrets")
	h.keys("enter", "4", "l")
	if got := squash(h.footer()); !strings.Contains(got, squash("l follows a pod's log: :pods, then l on one")) {
		t.Errorf("l on secrets says %q", got)
	}
}

// Enter on a namespace goes into it and shows its pods, as k9s does; u
// uses the namespace of the object under the cursor; 0 is every
// namespace.
func TestNamespaceKeys(t *testing.T) {
	h, _, re := clusterReads(t, 80, 24)
	h.keys(":")
	h.typeText("namespaces")
	h.keys("enter", "4", "enter")
	if len(re.ns) != 1 || re.ns[0] != (source.Where{Namespace: "demo"}) {
		t.Fatalf("enter on namespace demo asked %+v", re.ns)
	}
	if len(re.watched) != 1 || re.watched[0] != "pods" || h.m.c.data.current != "pods" {
		t.Fatalf("enter on a namespace then watched %q and shows %q, want its pods", re.watched, h.m.c.data.current)
	}
	h.keys("u")
	if len(re.ns) != 2 || re.ns[1] != (source.Where{Namespace: "default"}) {
		t.Fatalf("u on default/web-0 asked %+v", re.ns)
	}
	h.keys("0")
	if len(re.ns) != 3 || re.ns[2] != (source.Where{All: true}) {
		t.Fatalf("0 asked %+v", re.ns)
	}
	if got := h.footer(); !strings.Contains(got, "every namespace") {
		t.Errorf("0 says %q", got)
	}
}

// A k9s key informtop leaves unbound says once what it does in k9s and
// why informtop does not; pressed again it says nothing more.
func TestK9sKeysSayWhyNot(t *testing.T) {
	h, _, _ := clusterReads(t, 80, 24)
	h.keys("4")
	for _, k := range []string{"e", "ctrl+k", "a", "F", "z", "t"} {
		h.keys(k)
		want := k9sHints[k]
		if got := squash(h.footer()); !strings.Contains(got, squash(want)) {
			t.Errorf("%s says %q, want %q", k, got, want)
		}
		h.keys(k)
		if got := squash(h.footer()); strings.Contains(got, squash(want)) {
			t.Errorf("%s says it again: %q", k, got)
		}
	}
	if sv := h.m.views[viewStore].(*storeView); sv.mode != storeList {
		t.Errorf("a k9s key changed the Store's mode to %d", sv.mode)
	}
	// In the Store a control the cluster cannot serve means k9s' key
	// first (s: a shell), then says why informtop's does nothing.
	h.keys("s")
	if got := squash(h.footer()); !strings.Contains(got, squash(k9sHints["s"])) {
		t.Errorf("s in the Store says %q", got)
	}
	h.keys("s")
	if got := squash(h.footer()); !strings.Contains(got, squash("s does nothing on kube: prod: stalling needs")) {
		t.Errorf("s again says %q", got)
	}
	// Off a cluster, 0 says so.
	h = fixture(t, 80, 24)
	h.keys("4", "0")
	if got := squash(h.footer()); !strings.Contains(got, squash("0 shows every namespace in k9s; demo does not watch a cluster from here")) {
		t.Errorf("0 on the demo says %q", got)
	}
}

// The describe and logs panes, the container picker and a k9s key's
// answer, pinned at both sizes.
func TestGoldenDescribeAndLogs(t *testing.T) {
	for _, tc := range []struct {
		name string
		keys []string
	}{
		{"store-describe", []string{"4", "j", "d"}},
		{"store-logs", []string{"4", "l"}},
		{"store-logs-pick", []string{"4", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "j", "l"}},
		{"store-k9s-key", []string{"4", "ctrl+k"}},
	} {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h, _, _ := clusterReads(t, sz[0], sz[1])
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}

// The help lists l, u and 0 where the source serves them.
func TestHelpListsClusterKeys(t *testing.T) {
	h, _, _ := clusterReads(t, 160, 48)
	h.keys("?")
	for _, want := range []string{"d describe", "l logs", "u use its namespace", "0 all namespaces"} {
		if !strings.Contains(h.screen(), want) {
			t.Errorf("the help lacks %q:\n%s", want, h.screen())
		}
	}
	h = fixture(t, 160, 48)
	h.keys("?")
	if s := h.screen(); strings.Contains(s, "l logs") || strings.Contains(s, "0 all namespaces") {
		t.Errorf("the demo's help offers cluster keys:\n%s", s)
	}
}
