package tui

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
	"github.com/informtop/informtop/agent/verify"
)

// The client-go fixture is a controller attached through the agent with
// two informers: "configmaps", client-go's own informer observed from
// outside (a depth but no rows, backlogs as lower bounds, no capacities,
// no memory estimate), its controller-runtime handler stuck in user code;
// and "pods", informtop's engine.

// stuckFrame is where the configmaps handler is stuck.
var stuckFrame = source.StackFrame{Function: "main.blockIfLabelled",
	File: "/home/dev/informtop/examples/controller-runtime/main.go", Line: 44}

// longListener is a client-go handler named after its function.
const longListener = "github.com/informtop/informtop/agent_test.TestClientGoInformerNamesTheStuckCode"

// attachSource is the fixture as attach --verify serves it: read-only but
// for verify, which it answers for any informer asked.
type attachSource struct {
	*sourcetest.Fake
	asked []string
}

func (s *attachSource) Controls() source.Controls { return source.Controls{Verifier: s} }

func (s *attachSource) Verify(_ context.Context, informer string) (verify.Result, error) {
	s.asked = append(s.asked, informer)
	return verify.Result{Equal: true, ResourceVersion: "49446", Objects: 60}, nil
}

func newClientGoSource() *attachSource { return newClientGoSourceOf(clientGoConfig()) }

// newClientGoSourceOf is attachSource over cfg.
func newClientGoSourceOf(cfg sourcetest.Config) *attachSource {
	return &attachSource{Fake: sourcetest.New(cfg)}
}

// newClientGoCluster is the fixture's informers with every capability a
// client-go informer lacks (steps, queue pages, backlogs, verify), so
// tests see what the informer alone withholds.
func newClientGoCluster() *sourcetest.Verifying {
	ctl := &sourcetest.Controller{}
	ctl.SetStepResult(fixtureStep)
	return sourcetest.NewVerifying(sourcetest.NewCluster(sourcetest.New(clientGoConfig()), ctl))
}

func clientGoConfig() sourcetest.Config {
	cfg := sourcetest.Config{
		Kind:  "attach",
		Title: "127.0.0.1:6060",
		Stores: map[string]source.StoreReader{
			"configmaps": configMapStore(),
			"pods":       podStore(),
		},
		Events: clientGoEvents(),
	}
	var modified uint64 = 5000
	for i := 0; i < fixtureFrames; i++ {
		modified += modifiedPerSecond[i]
		t := t0.Add(time.Duration(i) * time.Second)
		cfg.Frames = append(cfg.Frames, []source.Informer{clientGoSnapshot(i, t), podsSnapshot(i, t, modified)})
	}
	return cfg
}

// clientGoSnapshot is the configmaps informer at frame i: what an agent
// reads of client-go's informer, and nothing more.
func clientGoSnapshot(i int, t time.Time) source.Informer {
	n := uint64(i)
	frame := stuckFrame
	return source.Informer{
		Name: "configmaps", Resource: "configmaps", Implementation: source.ImplementationClientGo,
		QueueKind: source.RealFIFO, Taken: t, Started: true, Synced: true, LastSyncResourceVersion: fmt.Sprint(7100 + i),
		Queue: source.Queue{Kind: source.RealFIFO, Depth: 3, Synced: true},
		Store: source.Cache{Objects: 12, LastResourceVersion: fmt.Sprint(7100 + i), Generation: 40 + n},
		Reflector: source.Reflector{
			Lists: 1, ListPages: 1, ListedItems: 12, LastListItems: 12, LastListTime: 30 * time.Millisecond,
			Watches: 1, WatchOpen: true, WatchSince: t0.Add(-95 * time.Second),
			WatchEvents: 20 + n, WatchAdded: 3, WatchModified: 17 + n,
			LastEventTime: t.Add(-300 * time.Millisecond), LastHeard: t.Add(-300 * time.Millisecond),
		},
		Listeners: []source.Listener{
			{Name: "controller-runtime · configmaps", Pending: 5 + i/3, PendingEstimated: true, HighWater: 7 + i/3,
				Delivered:  source.Delivered{Add: 12, Update: 8},
				LatencyP50: 400 * time.Microsecond, LatencyP99: 3 * time.Millisecond,
				InCallback: source.CallbackAdd, InCallbackKey: "default/blocked", InCallbackSince: t0.Add(-4 * time.Second),
				OldestPendingSince: t0.Add(-4 * time.Second), Frame: &frame, Synced: true},
			{Name: "controller-runtime · configmaps #2", PendingEstimated: true, HighWater: 2,
				Delivered:  source.Delivered{Add: 13, Update: 17 + n},
				LatencyP50: 90 * time.Microsecond, LatencyP99: 800 * time.Microsecond, Synced: true},
			{Name: longListener, Pending: 2, PendingEstimated: true, HighWater: 4,
				Delivered:  source.Delivered{Add: 13, Update: 15 + n},
				LatencyP50: 1 * time.Millisecond, LatencyP99: 6 * time.Millisecond, Synced: true},
		},
		Events: source.RingStats{Emitted: 40 + n},
	}
}

// clientGoEvents is what client-go's informer logs: lifecycle events, a
// handler call that stalled and returned, and one that is still stuck.
func clientGoEvents() []source.Event {
	frame := stuckFrame.String()
	at := func(d time.Duration) time.Time { return t0.Add(d) }
	list := []source.Event{
		{Time: at(-9 * time.Second), Type: source.EventListDone, Informer: "configmaps", Count: 12, Detail: "7090"},
		{Time: at(-8900 * time.Millisecond), Type: source.EventWatchOpen, Informer: "configmaps", Detail: "7090"},
		{Time: at(-8800 * time.Millisecond), Type: source.EventSynced, Informer: "configmaps", Detail: "informer"},
		{Time: at(-7 * time.Second), Type: source.EventStalled, Informer: "configmaps", Listener: "controller-runtime · configmaps #2",
			Key: "default/slow", Detail: source.CallbackUpdate, Duration: 2100 * time.Millisecond, Frame: "main.slowReconcile (main.go:61)"},
		{Time: at(-3800 * time.Millisecond), Type: source.EventRecovered, Informer: "configmaps", Listener: "controller-runtime · configmaps #2",
			Key: "default/slow", Detail: source.CallbackUpdate, Duration: 5300 * time.Millisecond, Frame: "main.slowReconcile (main.go:61)"},
		{Time: at(-2 * time.Second), Type: source.EventStalled, Informer: "configmaps", Listener: "controller-runtime · configmaps",
			Key: "default/blocked", Detail: source.CallbackAdd, Duration: 2 * time.Second, Frame: frame},
	}
	for i := range list {
		list[i].Seq = uint64(i + 1)
	}
	return list
}

// configMapStore is the configmaps cache: twelve ConfigMaps, one of them
// labelled to block the handler.
func configMapStore() *sourcetest.Store {
	var items []sourcetest.Item
	for j := 0; j < 12; j++ {
		name := fmt.Sprintf("settings-%d", j)
		labels := map[string]string{"app": "web"}
		if j == 0 {
			name, labels = "blocked", map[string]string{"informtop.dev/block": "true"}
		}
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default", ResourceVersion: fmt.Sprint(7000 + j),
			Labels: labels, CreationTimestamp: metav1.NewTime(t0.Add(-time.Duration(j+1) * time.Minute))},
			Data: map[string]string{"mode": "fast"}}
		items = append(items, sourcetest.Item{Key: "default/" + name, Object: cm, Indexes: map[string][]string{"namespace": {"default"}}})
	}
	return sourcetest.NewResourceStore("configmaps", 40, items...)
}
