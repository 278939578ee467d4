package tui

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// deniedReason is what the kube source says of an informer the access
// check refused (kube/access.go).
const deniedReason = say.DeniedPrefix + "you may not list or watch configmaps in namespace kube-system (RBAC); the other resources keep working"

// outageError is what client-go's reflector says while the API server is
// gone.
const outageError = `Get "https://127.0.0.1:6443/api/v1/namespaces/default/pods?allowWatchBookmarks=true&resourceVersion=48213&timeoutSeconds=423&watch=true": dial tcp 127.0.0.1:6443: connect: connection refused`

// outageSentence is the kube source's status while no watch is open
// (kube/source.go).
var outageSentence = "no watch open on https://127.0.0.1:6443: " + say.ErrorReason(outageError, "the last list or watch failed") + "; retrying with backoff"

// outageShown is outageSentence as the header shows it: the request by
// its host and resource, without the path and query the Events view keeps.
const outageShown = `no watch open on https://127.0.0.1:6443: cannot reach the API server: Get "127.0.0.1:6443/…/pods": dial tcp 127.0.0.1:6443: connect: connection refused; retrying with backoff`

// deniedConfig is a cluster whose configmaps informer RBAC refuses.
func deniedConfig() sourcetest.Config {
	cfg := clusterConfig()
	cfg.Notes = nil
	cfg.Reasons = source.Reasons{"configmaps": deniedReason}
	return cfg
}

// outageConfig is a cluster whose API server stopped answering 2 s
// before each frame: every watch down, the source disconnected.
func outageConfig() sourcetest.Config {
	cfg := clusterConfig()
	cfg.Notes = nil
	cfg.Status = source.Status{State: source.Disconnected, LastError: outageError, Message: outageSentence}
	for i := range cfg.Frames {
		for j := range cfg.Frames[i] {
			s := &cfg.Frames[i][j]
			s.Reflector.WatchOpen, s.Reflector.LastError, s.Reflector.LastErrorTime = false, outageError, s.Taken.Add(-2*time.Second)
		}
	}
	cfg.Events = append(cfg.Events, source.Event{Seq: uint64(len(cfg.Events) + 1), Time: t0.Add(5 * time.Second),
		Type: source.EventWatchError, Informer: "pods", Detail: outageError})
	return cfg
}

func reasonHarness(t *testing.T, cfg sourcetest.Config, w, h int) *harness {
	t.Helper()
	hs := newHarness(t, newControlledSource(cfg, &sourcetest.Controller{}))
	hs.size(w, h)
	hs.frames(fixtureFrames)
	return hs
}

var reasonGoldenCases = []struct {
	name string
	cfg  func() sourcetest.Config
	keys []string
}{
	{"denied-informer", deniedConfig, []string{":", "c", "o", "n", "enter"}},
	{"disconnected-source", outageConfig, nil},
	{"disconnected-event-detail", outageConfig, []string{"5", "enter"}},
}

func TestGoldenReasonScreens(t *testing.T) {
	for _, tc := range reasonGoldenCases {
		for _, sz := range goldenSizes {
			name := fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1])
			t.Run(name, func(t *testing.T) {
				h := reasonHarness(t, tc.cfg(), sz[0], sz[1])
				h.keys(tc.keys...)
				got := h.screen()
				assertFits(t, got, sz[0], sz[1])
				golden(t, name, got)
			})
		}
	}
}

// squash drops every space and line break, so a sentence wrapped over
// lines (a hyphen or a long URL may be where it breaks) compares whole.
func squash(s string) string { return strings.Join(strings.Fields(s), "") }

// The header's sentences are read whole at 80×24: a denied informer's and
// a disconnected source's wrap under the tabs, nothing cut, and the view
// below gives up those rows; the header is three lines again once the
// trouble ends.
func TestReasonSentencesAreReadWhole(t *testing.T) {
	for _, tc := range []struct {
		name, sentence string
		cfg            func() sourcetest.Config
		keys           []string
	}{
		{"denied", "✗ not synced: " + deniedReason, deniedConfig, []string{":", "c", "o", "n", "enter"}},
		{"disconnected", outageShown, outageConfig, nil},
	} {
		for _, sz := range [][2]int{{80, 24}, {160, 48}, {60, 16}} {
			t.Run(fmt.Sprintf("%s-%dx%d", tc.name, sz[0], sz[1]), func(t *testing.T) {
				h := reasonHarness(t, tc.cfg(), sz[0], sz[1])
				h.keys(tc.keys...)
				lines := strings.Split(h.screen(), "\n")
				var below []string
				for _, l := range lines[headerLines:] {
					if strings.HasPrefix(l, "API server") {
						break
					}
					below = append(below, l)
				}
				if len(below) == 0 {
					t.Fatalf("the sentence has no lines of its own:\n%s", h.screen())
				}
				if joined := squash(strings.Join(below, "\n")); joined != squash(tc.sentence) {
					t.Fatalf("under the tabs:\n%s\nwant the whole sentence %q", strings.Join(below, "\n"), tc.sentence)
				}
			})
		}
	}
}

// A note that fits after the tabs stays there: the header keeps three
// lines and the view its rows.
func TestShortNoteKeepsTheHeaderOneLine(t *testing.T) {
	cfg := clusterConfig()
	cfg.Notes = nil
	cfg.Reasons = source.Reasons{"configmaps": "still listing"}
	h := reasonHarness(t, cfg, 160, 48)
	h.keys(":", "c", "o", "n", "enter")
	lines := strings.Split(h.screen(), "\n")
	if !strings.HasSuffix(lines[2], "✗ not synced: still listing") || !strings.HasPrefix(lines[3], "API server") {
		t.Fatalf("a short note left the tab line:\n%s", h.screen())
	}
}

// When the source is live again its sentence goes and the view has its
// rows back.
func TestHeaderShrinksWhenTheOutageEnds(t *testing.T) {
	cfg := outageConfig()
	f := sourcetest.New(cfg)
	h := newHarness(t, f)
	h.size(80, 24)
	h.frames(fixtureFrames)
	if got := strings.Split(h.screen(), "\n")[headerLines]; strings.HasPrefix(got, "API server") {
		t.Fatalf("the outage's sentence has no line:\n%s", h.screen())
	}
	f.SetStatus(source.Status{State: source.Live})
	f.SetFrames(clusterConfig().Frames)
	h.frames(1)
	screen := h.screen()
	assertFits(t, screen, 80, 24)
	if got := strings.Split(screen, "\n")[headerLines]; !strings.HasPrefix(got, "API server") {
		t.Fatalf("the header kept rows after the outage ended:\n%s", screen)
	}
	if strings.Contains(screen, "no watch open") || strings.Contains(screen, "disconnected") {
		t.Fatalf("the outage is still said:\n%s", screen)
	}
}

// The Events view's drill-in wraps a long error whole instead of cutting
// it at three lines.
func TestEventDetailWrapsWhole(t *testing.T) {
	h := reasonHarness(t, outageConfig(), 80, 24)
	h.keys("5", "enter")
	lines := strings.Split(h.screen(), "\n")
	start := -1
	for i, l := range lines {
		if strings.HasPrefix(l, "detail ") {
			start = i
		}
	}
	if start < 0 {
		t.Fatalf("no detail:\n%s", h.screen())
	}
	var detail []string
	for _, l := range lines[start : len(lines)-1] {
		detail = append(detail, strings.TrimPrefix(strings.TrimPrefix(l, "detail"), " "))
	}
	if got := squash(strings.Join(detail, "\n")); got != squash(outageError) {
		t.Fatalf("the detail reads\n%s\nwant the whole error %q", strings.Join(detail, "\n"), outageError)
	}
}

// A status message too long for the footer's line (a refused key's
// reason) wraps above the key hints and is read whole at 80×24; the view
// gives up those rows while it shows and has them back once it expires.
func TestLongFooterMessageIsReadWhole(t *testing.T) {
	cfg := clusterConfig()
	cfg.Notes = nil
	f := sourcetest.New(cfg)
	h := newHarness(t, f)
	h.size(80, 24)
	h.frames(fixtureFrames)
	body := h.m.c.height
	h.keys("space")
	want := "space does nothing on kube: prod: " + whyProcessing
	screen := h.screen()
	assertFits(t, screen, 80, 24)
	if !strings.Contains(squash(h.footer()), squash(want)) {
		t.Fatalf("the footer does not read %q whole:\n%s", want, screen)
	}
	if rows := h.m.footerRows(); rows < 2 || h.m.c.height != body-(rows-1) || !strings.Contains(lastLine(screen), "? help") {
		t.Fatalf("the message should wrap above the key hints, the view giving up its rows (footer %d rows, view %d of %d):\n%s", rows, h.m.c.height, body, screen)
	}
	f.SetFrames(cfg.Frames[len(cfg.Frames)-1:])
	h.advance(statusFor + time.Millisecond)
	h.frames(1)
	screen = h.screen()
	assertFits(t, screen, 80, 24)
	if h.m.footerRows() != 1 || strings.Contains(screen, "does nothing") || h.m.c.height != body {
		t.Fatalf("the message outstayed its %v, or the view its rows (%d of %d):\n%s", statusFor, h.m.c.height, body, screen)
	}
}

// refusedWatch is what the reflector records of a WATCH the API server
// refused (the demo's outage, a real one's): client-go quotes the request
// whole.
func refusedWatch(path string) string {
	return `watch: Get "https://127.0.0.1:6443` + path + `?allowWatchBookmarks=true&resourceVersion=624&timeoutSeconds=338&watch=true": dial tcp 127.0.0.1:6443: connect: connection refused`
}

// At 80 columns a refused watch's reason takes at most two rows under the
// tabs, saying the host and the resource but not the path or the query,
// however long ago the last error was; the listeners below stay in view.
func TestRefusedWatchReasonFitsTwoRowsAt80(t *testing.T) {
	for _, path := range []string{"/api/v1/pods", "/api/v1/namespaces/default/pods", "/apis/apps/v1/namespaces/default/deployments"} {
		for _, ago := range []time.Duration{237 * time.Millisecond, 1300 * time.Millisecond, 59 * time.Second, 12*time.Minute + 34*time.Second} {
			t.Run(fmt.Sprintf("%s-%v", path, ago), func(t *testing.T) {
				s := source.Informer{Name: "pods", Resource: "pods", Started: true, Taken: t0, Synced: true,
					Reflector: source.Reflector{LastError: refusedWatch(path), LastErrorTime: t0.Add(-ago)},
					Listeners: []source.Listener{{Name: "fast", Synced: true}, {Name: "medium", Synced: true}, {Name: "slow", Synced: true}}}
				h := newHarness(t, sourcetest.New(sourcetest.Config{Kind: "demo", Title: "demo · watch-drop", Frames: [][]source.Informer{{s}}}))
				h.size(80, 24)
				h.frames(1)
				screen := h.screen()
				lines := strings.Split(screen, "\n")
				var below []string
				for _, l := range lines[headerLines:] {
					if strings.HasPrefix(l, "API server") || strings.HasPrefix(l, "Reflector") || strings.HasPrefix(l, "Server side") {
						break
					}
					below = append(below, l)
				}
				reason := strings.Join(below, " ")
				resource := path[strings.LastIndex(path, "/")+1:]
				switch {
				case len(below) == 0 || len(below) > 2:
					t.Fatalf("the reason takes %d rows, want 1 or 2:\n%s", len(below), screen)
				case !strings.HasPrefix(below[0], "watch down, last error"):
					t.Fatalf("the rows under the tabs are not the reason:\n%s", screen)
				case !strings.Contains(reason, `"127.0.0.1:6443/…/`+resource+`"`) || !strings.Contains(squash(reason), "connectionrefused;retrying"):
					t.Fatalf("the reason does not name the host and %s, or not why:\n%s", resource, screen)
				case strings.Contains(reason, "?") || strings.Contains(reason, "namespaces/"):
					t.Fatalf("the reason quotes the request's path or query:\n%s", screen)
				}
				for _, l := range []string{"fast", "medium", "slow"} {
					if !strings.Contains(screen, "─▶   "+l) {
						t.Errorf("listener %s is out of view:\n%s", l, screen)
					}
				}
			})
		}
	}
}

// briefURLs keeps a URL that is not an API request's, without its query.
func TestBriefURLs(t *testing.T) {
	for in, want := range map[string]string{
		`Get "https://10.0.0.1:6443/api/v1/namespaces/kube-system/configmaps/x?timeout=5s": EOF`: `Get "10.0.0.1:6443/…/configmaps": EOF`,
		`Get "https://10.0.0.1:6443/apis/example.com/v1/widgets?watch=true": EOF`:                `Get "10.0.0.1:6443/…/widgets": EOF`,
		`no watch open on https://10.0.0.1:6443: gone`:                                           `no watch open on https://10.0.0.1:6443: gone`,
		`Get "https://10.0.0.1:6443/metrics?x=1": EOF`:                                           `Get "https://10.0.0.1:6443/metrics?…": EOF`,
		`Get "https://10.0.0.1:6443/openapi/v3": EOF`:                                            `Get "https://10.0.0.1:6443/openapi/v3": EOF`,
	} {
		if got := briefURLs(in); got != want {
			t.Errorf("briefURLs(%q) = %q, want %q", in, got, want)
		}
	}
}

// An informer the access check refused has no watch even before its
// reflector's first error: the title says so, not that a watch is down.
func TestDeniedInformerHasNoWatchBeforeAnyError(t *testing.T) {
	cfg := deniedConfig()
	for i := range cfg.Frames {
		for j := range cfg.Frames[i] {
			if s := &cfg.Frames[i][j]; s.Name == "configmaps" {
				s.Reflector.WatchOpen, s.Reflector.ListInProgress, s.Reflector.LastError = false, false, ""
			}
		}
	}
	h := reasonHarness(t, cfg, 160, 48)
	h.keys(":", "c", "o", "n", "enter")
	title := strings.SplitN(h.screen(), "\n", 2)[0]
	if !strings.Contains(title, "no watch · ✗ forbidden") {
		t.Errorf("title %q, want no watch · ✗ forbidden", title)
	}
}
