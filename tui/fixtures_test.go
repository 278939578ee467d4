package tui

import (
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/source/sourcetest"
)

// t0 is when the fixture's first frame was taken.
var t0 = time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)

const fixtureFrames = 10

// modifiedPerSecond shapes the MODIFIED sparkline of the pods informer.
var modifiedPerSecond = []uint64{100, 140, 90, 200, 260, 180, 120, 150, 300, 220}

// controlledSource offers every control of the demo (pause, step, resync,
// stall, faults, workload) but no QueueReader, so a queue detail shows
// what the snapshot's queue head tells, as the goldens pin it.
type controlledSource struct {
	*sourcetest.Fake
	ctl *sourcetest.Controller
}

func newControlledSource(cfg sourcetest.Config, ctl *sourcetest.Controller) *controlledSource {
	f := sourcetest.New(cfg)
	f.ReportPaused(ctl)
	return &controlledSource{Fake: f, ctl: ctl}
}

func (s *controlledSource) Controls() source.Controls {
	return source.Controls{Processing: s.ctl, Stalling: s.ctl, Faults: s.ctl, Workload: s.ctl}
}

// fixtureStep is what stepping the fixture's pods informer pops.
var fixtureStep = source.StepResult{
	Informer: "pods", Key: "default/web-3", Deltas: []cache.DeltaType{cache.Updated},
	Store: []string{"Update default/web-3"},
	Notifications: []source.StepNotification{
		{Listener: "fast", Callback: "OnUpdate", Key: "default/web-3"},
		{Listener: "slow", Callback: "OnUpdate", Key: "default/web-3"},
		{Listener: "audit", Callback: "OnUpdate", Key: "default/web-3"},
		{Listener: "late", Callback: "OnAdd", Key: "default/web-3", Detail: "isInInitialList"},
	},
}

// newFixtureSource is a demo-like source with three informers, one frame
// per second: "pods" (RealFIFO, four listeners, "audit" stalled in a
// callback with a rising backlog, "late" still syncing), "secrets"
// (DeltaFIFO with coalesced keys, Secret objects) and "configmaps" (watch
// down with a 403).
func newFixtureSource() *controlledSource {
	ctl := &sourcetest.Controller{}
	ctl.SetStepResult(fixtureStep)
	return newControlledSource(fixtureConfig(), ctl)
}

// fixtureConfig is what newFixtureSource replays, for tests that change it
// or offer other capabilities over it.
func fixtureConfig() sourcetest.Config {
	cfg := sourcetest.Config{
		Kind:  "demo",
		Title: "demo",
		Notes: []string{"scenario: stalled handler: watch audit's backlog grow, then press s on it"},
		Stores: map[string]source.StoreReader{
			"pods":       podStore(),
			"secrets":    secretStore(),
			"configmaps": sourcetest.NewStore(1),
		},
		Events: fixtureEvents(),
	}
	var modified uint64 = 5000
	for i := 0; i < fixtureFrames; i++ {
		modified += modifiedPerSecond[i]
		t := t0.Add(time.Duration(i) * time.Second)
		cfg.Frames = append(cfg.Frames, []source.Informer{
			podsSnapshot(i, t, modified),
			secretsSnapshot(i, t),
			configmapsSnapshot(t),
		})
	}
	return cfg
}

func podsSnapshot(i int, t time.Time, modified uint64) source.Informer {
	n := uint64(i)
	head := make([]source.QueueItem, 42)
	for j := range head {
		types := []cache.DeltaType{cache.Updated}
		switch j % 7 {
		case 3:
			types = []cache.DeltaType{cache.Added}
		case 5:
			types = []cache.DeltaType{cache.Deleted}
		}
		key := fmt.Sprintf("default/web-%d", j%12)
		if j%4 == 1 {
			key = fmt.Sprintf("kube-system/coredns-%d", j%3)
		}
		head[j] = source.QueueItem{Key: key, Types: types, Enqueued: t.Add(-1500*time.Millisecond + time.Duration(j)*30*time.Millisecond)}
	}
	return source.Informer{
		Name: "pods", Resource: "pods", QueueKind: source.RealFIFO, Taken: t,
		Started: true, Synced: true, LastSyncResourceVersion: fmt.Sprint(48213 + i*137),
		Queue: source.Queue{
			Kind: source.RealFIFO, Depth: 42, Deltas: 42, OldestEnqueued: t.Add(-1500 * time.Millisecond),
			Added:  source.DeltaCounts{Added: 600 + 12*n, Updated: modified, Deleted: 20 + 3*n, Replaced: 600},
			Popped: source.DeltaCounts{Added: 590 + 12*n, Updated: modified - 30, Deleted: 18 + 3*n, Replaced: 600},
			Pops:   1800 + 150*n, Synced: true, Head: head,
		},
		Store: source.Cache{
			Objects: 60, Indexes: map[string]int{"namespace": 2, "node": 3},
			LastResourceVersion: fmt.Sprint(48213 + i*137), Adds: 660 + 12*n, Updates: modified - 30,
			Deletes: 18 + 3*n, Replaces: 2, Generation: 1000 + n,
		},
		Reflector: source.Reflector{
			Lists: 2, ListPages: 6, ListedItems: 1200, LastListItems: 600, LastListTime: 1200 * time.Millisecond,
			Relists: 1, Watches: 3, WatchOpen: true, WatchSince: t0.Add(-184 * time.Second),
			WatchEvents: 100 + 12*n + modified + 20 + 3*n, WatchAdded: 100 + 12*n, WatchModified: modified,
			WatchDeleted: 20 + 3*n, WatchBookmarks: 4 + n/5, WatchErrors: 1, Errors: 1,
			LastError: "too old resource version: 47000 (48000)", LastErrorTime: t0.Add(-200 * time.Second),
			LastEventTime: t.Add(-200 * time.Millisecond), LastBookmarkTime: t.Add(-41 * time.Second), LastHeard: t.Add(-200 * time.Millisecond),
		},
		Listeners: []source.Listener{
			{Name: "fast", Pending: 0, Capacity: 1024, HighWater: 57,
				Delivered:  source.Delivered{Add: 660 + 12*n, Update: modified - 30, Delete: 18 + 3*n},
				LatencyP50: 180 * time.Microsecond, LatencyP99: 2100 * time.Microsecond, Synced: true,
				RequestedResync: 0, ResyncPeriod: 0},
			{Name: "slow", Pending: 12 + i%3, Capacity: 1024, HighWater: 96,
				Delivered:  source.Delivered{Add: 660, Update: 4000 + 80*n, Delete: 18},
				LatencyP50: 12 * time.Millisecond, LatencyP99: 95 * time.Millisecond,
				InCallback: source.CallbackUpdate, InCallbackKey: "default/web-2", InCallbackSince: t.Add(-40 * time.Millisecond),
				Synced: true, RequestedResync: 30 * time.Second, ResyncPeriod: 30 * time.Second},
			{Name: "audit", Pending: 100 + 50*i, Capacity: 2048, HighWater: 100 + 50*i,
				Delivered:  source.Delivered{Add: 660, Update: 240},
				LatencyP50: 3 * time.Millisecond, LatencyP99: 1400 * time.Millisecond,
				InCallback: source.CallbackUpdate, InCallbackKey: "default/web-7", InCallbackSince: t0.Add(-3 * time.Second),
				Synced: true, Panics: 2, LastPanic: "runtime error: index out of range [3] with length 3"},
			{Name: "late", Pending: 300 - 30*i, Capacity: 1024, HighWater: 300,
				Delivered: source.Delivered{Add: 300 + 30*n}, LatencyP50: 1 * time.Millisecond, LatencyP99: 4 * time.Millisecond},
		},
		Events: source.RingStats{Emitted: 123456 + 500*n},
	}
}

func secretsSnapshot(i int, t time.Time) source.Informer {
	n := uint64(i)
	return source.Informer{
		Name: "secrets", Resource: "secrets", QueueKind: source.DeltaFIFO, Taken: t,
		Started: true, Synced: true, LastSyncResourceVersion: "9120",
		Queue: source.Queue{
			Kind: source.DeltaFIFO, Depth: 3, Deltas: 6, OldestEnqueued: t.Add(-4200 * time.Millisecond),
			Added:  source.DeltaCounts{Added: 5, Updated: 40 + n, Deleted: 1, Replaced: 5, Sync: 10},
			Popped: source.DeltaCounts{Added: 3, Updated: 38 + n, Deleted: 0, Replaced: 5, Sync: 9},
			Pops:   50 + n, Coalesced: 57, Synced: true,
			Head: []source.QueueItem{
				{Key: "kube-system/bootstrap-token-abcdef", Types: []cache.DeltaType{cache.Added, cache.Updated, cache.Updated}, Enqueued: t.Add(-4200 * time.Millisecond)},
				{Key: "default/db-creds", Types: []cache.DeltaType{cache.Updated, cache.Deleted}, Enqueued: t.Add(-2 * time.Second)},
				{Key: "default/tls-web", Types: []cache.DeltaType{cache.Sync}, Enqueued: t.Add(-300 * time.Millisecond)},
			},
		},
		Store: source.Cache{Objects: 5, Indexes: map[string]int{"namespace": 2}, LastResourceVersion: "9120",
			Adds: 5, Updates: 38 + n, Replaces: 1, Generation: 40},
		Reflector: source.Reflector{
			Lists: 1, ListPages: 1, ListedItems: 5, LastListItems: 5, LastListTime: 40 * time.Millisecond,
			Watches: 1, WatchOpen: true, WatchSince: t0.Add(-65 * time.Second),
			WatchEvents: 42 + n, WatchAdded: 1, WatchModified: 40 + n, WatchDeleted: 1,
		},
		Listeners: []source.Listener{
			{Name: "controller", Capacity: 1024, HighWater: 5, Delivered: source.Delivered{Add: 5, Update: 38 + n, Sync: 9},
				LatencyP50: 400 * time.Microsecond, LatencyP99: 900 * time.Microsecond, Synced: true,
				RequestedResync: 10 * time.Second, ResyncPeriod: 10 * time.Second},
		},
		Events: source.RingStats{Emitted: 123456 + 500*n},
	}
}

func configmapsSnapshot(t time.Time) source.Informer {
	return source.Informer{
		Name: "configmaps", Resource: "configmaps", QueueKind: source.RealFIFO, Taken: t, Started: true,
		Queue: source.Queue{Kind: source.RealFIFO},
		Store: source.Cache{Indexes: map[string]int{}},
		Reflector: source.Reflector{
			Errors: 4, LastError: "403: cannot list configmaps in kube-system", LastErrorTime: t.Add(-3200 * time.Millisecond),
		},
		Listeners: []source.Listener{{Name: "cache-warmer", Capacity: 1024}},
	}
}

// podStore is the pods cache at generation 1009: 48 web pods in default,
// 12 coredns pods in kube-system, indexed by namespace and node.
func podStore() *sourcetest.Store {
	var items []sourcetest.Item
	for j := 0; j < 60; j++ {
		ns, name, node := "default", fmt.Sprintf("web-%d", j), fmt.Sprintf("node-%d", j%3)
		app := "web"
		if j >= 48 {
			ns, name, app = "kube-system", fmt.Sprintf("coredns-%d", j-48), "coredns"
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: fmt.Sprint(48000 + j),
				UID: types.UID("5f0c-" + fmt.Sprint(j)), CreationTimestamp: metav1.NewTime(t0.Add(-time.Duration(j+1) * 7 * time.Minute)),
				Labels: map[string]string{"app": app, "tier": "frontend"}},
			Spec:   corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: app, Image: "registry.example/" + app + ":1.2"}}},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		items = append(items, sourcetest.Item{Key: ns + "/" + name, Object: pod,
			Indexes: map[string][]string{"namespace": {ns}, "node": {node}}})
	}
	return sourcetest.NewStore(1009, items...)
}

func secretStore() *sourcetest.Store {
	var items []sourcetest.Item
	add := func(ns, name string, data map[string][]byte, ann map[string]string) {
		s := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, ResourceVersion: "9100", Annotations: ann,
				CreationTimestamp: metav1.NewTime(t0.Add(-48 * time.Hour))},
			Type: corev1.SecretTypeOpaque, Data: data,
		}
		items = append(items, sourcetest.Item{Key: ns + "/" + name, Object: s, Indexes: map[string][]string{"namespace": {ns}}})
	}
	add("default", "db-creds", map[string][]byte{"password": []byte("hunter2"), "username": []byte("admin")},
		map[string]string{"kubectl.kubernetes.io/last-applied-configuration": `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret"}`})
	add("default", "tls-web", map[string][]byte{"tls.crt": []byte("-----BEGIN CERTIFICATE-----"), "tls.key": []byte("-----BEGIN KEY-----")}, nil)
	add("default", "registry", map[string][]byte{".dockerconfigjson": []byte(`{"auths":{}}`)}, nil)
	add("kube-system", "bootstrap-token-abcdef", map[string][]byte{"token-secret": []byte("0123456789abcdef")}, nil)
	add("kube-system", "sh.helm.release.v1.dns.v1", map[string][]byte{"release": []byte("H4sIAAAA")}, nil)
	// As a metadata-only informer caches a Secret: no data, and the
	// whole Secret in kubectl's and kapp's annotations.
	applied := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"ingress-token"},"stringData":{"token":"plain-s3cr3t"}}`
	items = append(items, sourcetest.Item{Key: "default/ingress-token", Indexes: map[string][]string{"namespace": {"default"}},
		Object: &metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{APIVersion: "meta.k8s.io/v1", Kind: "PartialObjectMetadata"},
			ObjectMeta: metav1.ObjectMeta{Name: "ingress-token", Namespace: "default", ResourceVersion: "9101",
				CreationTimestamp: metav1.NewTime(t0.Add(-time.Hour)),
				Annotations: map[string]string{"kubectl.kubernetes.io/last-applied-configuration": applied,
					"kapp.k14s.io/original": applied, "owner": "ingress"}}}})
	return sourcetest.NewResourceStore("secrets", 40, items...)
}

// fixtureEvents is a short, mixed instrumentation log.
func fixtureEvents() []source.Event {
	type ev struct {
		typ      source.EventType
		inf, lis string
		key, det string
		n        int
		d        time.Duration
	}
	list := []ev{
		{typ: source.EventListPage, inf: "pods", n: 500, det: "continue=eyJ2IjoibWV0YS5r"},
		{typ: source.EventListPage, inf: "pods", n: 100},
		{typ: source.EventListDone, inf: "pods", n: 600, det: "48213"},
		{typ: source.EventReplace, inf: "pods", n: 600},
		{typ: source.EventWatchOpen, inf: "pods", det: "48213"},
		{typ: source.EventWatchEvent, inf: "pods", key: "default/web-1", det: "MODIFIED"},
		{typ: source.EventPop, inf: "pods", key: "default/web-1", det: "Updated"},
		{typ: source.EventStoreUpdate, inf: "pods", key: "default/web-1", det: "update"},
		{typ: source.EventDistribute, inf: "pods", key: "default/web-1", det: "update"},
		{typ: source.EventHandlerStart, inf: "pods", lis: "fast", key: "default/web-1", det: "OnUpdate"},
		{typ: source.EventHandlerFinish, inf: "pods", lis: "fast", key: "default/web-1", d: 180 * time.Microsecond},
		{typ: source.EventHandlerStart, inf: "pods", lis: "audit", key: "default/web-7", det: "OnUpdate"},
		{typ: source.EventHandlerPanic, inf: "pods", lis: "audit", key: "default/web-4", det: "runtime error: index out of range [3] with length 3"},
		{typ: source.EventWatchError, inf: "configmaps", det: "403: cannot list configmaps in kube-system"},
		{typ: source.EventSynced, inf: "secrets", det: "informer"},
		{typ: source.EventResync, inf: "secrets", n: 5},
		{typ: source.EventBookmark, inf: "pods", det: "48350"},
		{typ: source.EventWatchClose, inf: "pods", n: 1204},
		{typ: source.EventRelist, inf: "pods", det: "410 Gone"},
		{typ: source.EventControl, det: "pause"},
	}
	out := make([]source.Event, len(list))
	for i, e := range list {
		out[i] = source.Event{Seq: uint64(i + 1), Time: t0.Add(time.Duration(i) * 250 * time.Millisecond),
			Type: e.typ, Informer: e.inf, Listener: e.lis, Key: e.key, Detail: e.det, Count: e.n, Duration: e.d}
	}
	return out
}
