package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/spf13/pflag"
	"go.uber.org/goleak"

	"github.com/informtop/informtop/internal/examplectl"
	"github.com/informtop/informtop/internal/kubetest"
)

// kubetest.Main stops the real API server the cluster tests share and
// examplectl.Main removes the examples it built; goleak then checks that
// nothing outlived the tests.
func TestMain(m *testing.M) {
	code := examplectl.Main(m, kubetest.Main)
	if code == 0 {
		if err := goleak.Find(
			goleak.IgnoreTopFunction("net/http.(*persistConn).readLoop"),
			goleak.IgnoreTopFunction("net/http.(*persistConn).writeLoop"),
		); err != nil {
			fmt.Fprintf(os.Stderr, "goleak: goroutines left after the tests: %v\n", err)
			code = 1
		}
	}
	os.Exit(code)
}

func runCLI(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errOut bytes.Buffer
	code = run(args, &out, &errOut)
	return code, out.String(), errOut.String()
}

// --once --json prints the JSON report (docs/report.md) after the sync and exits 0.
func TestOnceJSON(t *testing.T) {
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	t.Setenv("HOME", t.TempDir())
	code, stdout, stderr := runCLI(t, "--demo", "--once", "--json", "--duration", "300ms")
	if code != 0 {
		t.Fatalf("exit code %d, stderr: %s", code, stderr)
	}
	var doc struct {
		Source    string `json:"source"`
		Informers []struct {
			Name, Resource, QueueKind string
			Synced                    bool
			LastSyncResourceVersion   string
			Queue                     struct{ Depth, Added, Popped int }
			Store                     struct {
				Objects int
				Indexes map[string]int
			}
			Reflector struct{ Lists, ListPages, Watches, WatchEvents, Relists, Errors int }
			Listeners []struct {
				Name              string
				Pending, Capacity int
				Delivered         int
				Synced            bool
				Panics            int
				InCallbackSeconds float64
			}
		}
		Events *struct{ Emitted, Dropped int } `json:"events"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if doc.Source != "demo" || len(doc.Informers) == 0 || doc.Events == nil {
		t.Fatalf("document = %+v", doc)
	}
	for _, inf := range doc.Informers {
		if !inf.Synced || inf.LastSyncResourceVersion == "" || inf.QueueKind != "RealFIFO" {
			t.Errorf("informer %s: synced=%t rv=%q queue=%s", inf.Name, inf.Synced, inf.LastSyncResourceVersion, inf.QueueKind)
		}
		if inf.Store.Objects == 0 || inf.Reflector.Lists == 0 || inf.Reflector.Watches == 0 || len(inf.Listeners) == 0 {
			t.Errorf("informer %s looks empty: %+v", inf.Name, inf)
		}
		if inf.Store.Indexes == nil {
			t.Errorf("informer %s: store.indexes missing", inf.Name)
		}
		for _, l := range inf.Listeners {
			if !l.Synced || l.Capacity == 0 || l.Delivered == 0 {
				t.Errorf("informer %s listener %s: %+v", inf.Name, l.Name, l)
			}
		}
	}
	for _, key := range []string{`"queueKind"`, `"lastSyncResourceVersion"`, `"oldestAgeSeconds"`, `"listPages"`, `"watchEvents"`, `"inCallbackSeconds"`, `"dropped"`} {
		if !strings.Contains(stdout, key) {
			t.Errorf("JSON lacks the stable key %s", key)
		}
	}
}

// --once without --json prints the same report as a table. The resync
// scenario's handlers are fast, so its sync takes milliseconds (steady's
// slow handler takes seconds; TestOnceJSON waits for it). --duration
// reports before the script ends.
func TestOnceTable(t *testing.T) {
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	code, stdout, stderr := runCLI(t, "--demo", "--scenario", "resync", "--once", "--queue", "DeltaFIFO", "--duration", "1ms")
	if code != 0 {
		t.Fatalf("exit code %d, stderr: %s", code, stderr)
	}
	for _, want := range []string{"source: demo", "synced: true", "pods (pods, DeltaFIFO)", "scenario: resync, step ", "reflector: 1 list, streamed (WatchList), 0 relists, 1 watch, ",
		"    listener   pending  capacity  delivered  synced  panics  in callback", "    resync-1s  "} {
		if !strings.Contains(stdout, want) {
			t.Errorf("table lacks %q:\n%s", want, stdout)
		}
	}
}

// Bad input gets a sentence and exit code 2, never a panic.
func TestBadInput(t *testing.T) {
	cases := []struct {
		args []string
		want string
	}{
		{[]string{"--queue", "LIFO"}, `invalid value "LIFO" for --queue: RealFIFO or DeltaFIFO`},
		{[]string{"--demo", "--scenario", "nope", "--once"}, "nope"},
		{[]string{"--json"}, "--json goes with --once"},
		{[]string{"--timeout", "0s", "--once"}, "--timeout must be positive"},
		{[]string{"--duration", "-1s", "--once"}, "--duration must not be negative"},
		{[]string{"--rate", "-2"}, "--rate must not be negative"},
		{[]string{"--demo", "--once", "--redact", "secrets/db"}, `cannot redact as asked: "secrets/db" is not a resource name`},
		{[]string{"--demo", "--once", "--redact-annotation", "a b"}, `"a b" is not an annotation key`},
		{[]string{"--demo", "--once", "--redact", "cm"}, "--redact cm: the demo watches no resource of that name; without a cluster's discovery (short names, kinds) name one by its plural or plural.group: pods, configmaps"},
		{[]string{"--demo", "--once", "--rate", "1e12", "--timeout", "5s"}, "--rate 1e+12 is more than the demo can apply: at most 5000 changes per second, e.g. --rate 5000"},
		{[]string{"--demo", "--once", "--rate", "1e9"}, "--rate 1e+09 is more than the demo can apply"},
		{[]string{"--demo", "--rate", "5001"}, "--rate 5001 is more than the demo can apply"},
		{[]string{"--demo", "--once", "--rate", "NaN"}, "--rate must be a number of changes per second"},
		{[]string{"--refresh", "1ms"}, "--refresh must be at least 10ms"},
		{[]string{"--no-such-flag"}, "unknown flag"},
		{[]string{"extra"}, `unexpected argument "extra"`},
		{[]string{"--context", "prod", "--once"}, `context "prod"`},
		{[]string{"--watch-list", "maybe"}, `invalid value "maybe" for --watch-list: auto, on or off`},
		{[]string{"--listener", "slow"}, "--listener takes NAME=DELAY"},
		{[]string{"--listener", "slow=fast"}, `"fast" is not a duration`},
		{[]string{"--demo", "-r", "pods"}, "--resource goes with a real cluster"},
		{[]string{"--demo=false", "--once"}, "no kubeconfig found (looked at"},
		{[]string{"--kubeconfig", "/nonexistent/config", "--once"}, "kubeconfig"},
		{[]string{"--kubeconfig", "/nonexistent/\x1b[2Jconfig", "--once"}, `/nonexistent/\x1b[2Jconfig`},
		{[]string{"attach"}, "attach takes one address"},
		{[]string{"attach", "ftp://x:1", "--once"}, "ftp"},
		{[]string{"attach", "127.0.0.1:1", "--json"}, "--json goes with --once"},
	}
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	t.Setenv("HOME", t.TempDir())
	for _, c := range cases {
		code, _, stderr := runCLI(t, c.args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q; want exit 2 mentioning %q", c.args, code, stderr, c.want)
		}
	}
}

// Without a terminal the dashboard refuses and points at --once/--json.
func TestDashboardNeedsTerminal(t *testing.T) {
	code, _, stderr := runCLI(t, "--demo")
	if code != 2 || !strings.Contains(stderr, "--once --json") {
		t.Fatalf("exit %d, stderr %q", code, stderr)
	}
}

func TestScenariosList(t *testing.T) {
	code, stdout, _ := runCLI(t, "scenarios")
	if code != 0 {
		t.Fatalf("exit %d", code)
	}
	for _, name := range []string{"steady", "burst", "stalled-listener", "watch-drop", "expired", "resync", "initial-sync", "fifo-compare", "mutating-handler", "slow-watcher", "watch-cache-window", "bookmarks"} {
		if !strings.Contains(stdout, name) {
			t.Errorf("scenarios lacks %s:\n%s", name, stdout)
		}
	}
}

// When the sync does not finish within --timeout the report is still
// printed, says synced: false, and the exit code is 1.
func TestOnceTimeout(t *testing.T) {
	code, stdout, stderr := runCLI(t, "--demo", "--scenario", "initial-sync", "--once", "--json", "--timeout", "50ms")
	if code != 1 {
		t.Fatalf("exit code %d, want 1; stderr: %s", code, stderr)
	}
	var doc struct {
		Synced    bool `json:"synced"`
		Informers []struct {
			Synced bool `json:"synced"`
		} `json:"informers"`
	}
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("output is not JSON: %v\n%s", err, stdout)
	}
	if doc.Synced || len(doc.Informers) == 0 || doc.Informers[0].Synced {
		t.Fatalf("report claims a sync that cannot have happened: %s", stdout)
	}
	if !strings.Contains(stderr, "not every informer") {
		t.Fatalf("stderr does not explain the exit code: %q", stderr)
	}
}

// Interrupted while waiting for the sync, --once still prints the report
// and says it was interrupted, not that --timeout ran out.
func TestOnceInterrupted(t *testing.T) {
	t.Setenv("KUBECONFIG", t.TempDir()+"/none")
	o := newOptions()
	fs := pflag.NewFlagSet("informtop", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse([]string{"--demo", "--scenario", "initial-sync", "--once", "--json"}); err != nil {
		t.Fatal(err)
	}
	src, err := chooseSource(context.Background(), o, fs)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	var out, errOut bytes.Buffer
	if code := runOnce(ctx, src, o, &out, &errOut); code != 1 {
		t.Fatalf("exit code %d, want 1", code)
	}
	if !strings.Contains(errOut.String(), "interrupted before every informer and handler had synced") {
		t.Fatalf("stderr %q does not say the wait was interrupted", errOut.String())
	}
	if !json.Valid(out.Bytes()) || !strings.Contains(out.String(), `"synced": false`) {
		t.Fatalf("the report is missing or claims a sync: %s", out.String())
	}
}
