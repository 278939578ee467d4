package kube

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// TestServerFiguresBesideTheInformer: for an admin, the API server's own
// figures about configmaps fill the frame: its watch cache's
// resourceVersion (at or past what the informer has seen), its window,
// events received and dispatched, and where they came from.
func TestServerFiguresBesideTheInformer(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}, ServerMetricsEvery: time.Second}, true)
	for i := range 3 {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprint("cm-", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitfor.Within(t, waitFor, "the informer seeing the three configmaps", func() (bool, string) {
		return len(cached(s, "configmaps")) == 3, fmt.Sprint(cached(s, "configmaps"))
	})
	// Through the source's own loop, asked as the dashboard asks while it
	// shows the figures: a reading whose /metrics request began after the
	// informer stood at informerRV, so the watch cache is at least there.
	// The second reading that ended after now began after the first ended.
	informerRV, _ := strconv.ParseUint(s.Pull(0, 0).Snapshots[0].LastSyncResourceVersion, 10, 64)
	seen := time.Now()
	var st source.ServerStats
	waitfor.Every(t, askEvery, waitFor, "a reading of the server ended after the informer's", func() (bool, string) {
		s.WantServer()
		st = s.Pull(0, 0).Server["configmaps"]
		return st.Taken.After(seen), fmt.Sprintf("%+v", st)
	})
	first := st.Taken
	waitfor.Every(t, askEvery, waitFor, "a reading of the server begun after the informer's", func() (bool, string) {
		s.WantServer()
		st = s.Pull(0, 0).Server["configmaps"]
		return st.Taken.After(first), fmt.Sprintf("%+v", st)
	})
	cacheRV, err := strconv.ParseUint(st.WatchCacheResourceVersion, 10, 64)
	if !st.Available || err != nil || cacheRV < informerRV || st.WatchCacheCapacity <= 0 ||
		st.EventsReceived < 3 || st.EventsDispatched == 0 || !strings.HasPrefix(st.From, c.Server()+", the kube-apiserver started ") {
		t.Fatalf("server figures %+v (informer at RV %d)", st, informerRV)
	}
	// The informer's own initial list was served one way or another:
	// from the watch cache, from etcd, or streamed.
	if st.ListsFromCache+st.ListsFromStorage+st.WatchLists == 0 {
		t.Fatalf("no list of configmaps counted by the server: %+v", st)
	}
	t.Log(say.Server(st))
}

// TestServerFiguresSayWhichAPIServerAnswered: behind several API servers
// each scrape may reach another one; the figures say which answered (its
// start time) and, when it changed since the last read, that the counters
// are that server's own.
func TestServerFiguresSayWhichAPIServerAnswered(t *testing.T) {
	c := kubetest.Shared(t)
	first := testClients(t, c)
	second := kubernetes.NewForConfigOrDie(c.StartSecondAPIServer(t))
	m := newServerMetrics(first, "https://api.example:6443", "", "", 0)
	m.resources["configmaps"] = schema.GroupResource{Resource: "configmaps"}
	ctx := context.Background()
	m.scrape(ctx)
	a := m.stats()["configmaps"]
	m.get = func(ctx context.Context) ([]byte, error) { return readMetrics(ctx, second) }
	m.scrape(ctx)
	b := m.stats()["configmaps"]
	if a.ServerStarted == nil || b.ServerStarted == nil || a.ServerStarted.Equal(*b.ServerStarted) {
		t.Fatalf("start times of the two API servers: %v and %v, want two different ones", a.ServerStarted, b.ServerStarted)
	}
	if !strings.HasPrefix(a.From, "https://api.example:6443, the kube-apiserver started ") || strings.Contains(a.From, "another API server") {
		t.Fatalf("first read from %q", a.From)
	}
	if !strings.Contains(b.From, "another API server than at the last read") {
		t.Fatalf("a read answered by another API server does not say so: %q", b.From)
	}
	// The admin may list the identity leases: at least this host's.
	if a.APIServers < 1 {
		t.Fatalf("API servers counted from identity leases: %d", a.APIServers)
	}
}

// TestForbiddenScrapeNamesThePermission: when the access review could not
// be made (so the user was not known to be denied) and the real API
// server then answers the scrape 403, the figures say which permission
// would show them, as a denied review does, and the loop asks again only
// after forbiddenRetryEvery, not at its pace, however often it is asked.
func TestForbiddenScrapeNamesThePermission(t *testing.T) {
	c := kubetest.Shared(t)
	ns := namespace(t, testClients(t, c))
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	f := flags(t, kc, ns)
	cfg, err := f.ToRESTConfig()
	if err != nil {
		t.Fatal(err)
	}
	m := newServerMetrics(kubernetes.NewForConfigOrDie(cfg), cfg.Host, "", "", 500*time.Millisecond) // "": the review failed
	m.resources["configmaps"] = schema.GroupResource{Resource: "configmaps"}
	var asked atomic.Int32
	get := m.get
	m.get = func(ctx context.Context) ([]byte, error) {
		asked.Add(1)
		return get(ctx)
	}
	const window = 3 * time.Second // six reads at the loop's pace
	ctx, cancel := context.WithTimeout(context.Background(), window)
	defer cancel()
	done := make(chan struct{})
	go func() { defer close(done); m.run(ctx) }()
	// Asked all along, as a dashboard showing the figures asks.
	for ctx.Err() == nil {
		m.want()
		time.Sleep(20 * time.Millisecond) // a dashboard's tick: the window, not a condition, is awaited
	}
	<-done
	if n := asked.Load(); n != 1 {
		t.Fatalf("asked /metrics %d times within %s after a 403, want once (again after %s)", n, window, forbiddenRetryEvery)
	}
	st := m.stats()["configmaps"]
	if st.Available || st.Reason != metricsPermission("") {
		t.Fatalf("after a 403: %+v, want the permission sentence %q", st, metricsPermission(""))
	}
}

// A failed read is not a denial: the loop goes on and says it retries.
func TestFailedScrapeIsRetried(t *testing.T) {
	m := &serverMetrics{
		get:       func(context.Context) ([]byte, error) { return nil, apierrors.NewServiceUnavailable("etcd is down") },
		resources: map[string]schema.GroupResource{"configmaps": {Resource: "configmaps"}},
		forbidden: metricsPermission(""),
		every:     DefaultServerMetricsEvery,
	}
	if !m.scrape(context.Background()) {
		t.Fatal("a 503 stopped the scrape loop")
	}
	if st := m.stats()["configmaps"]; st.Available || !strings.Contains(st.Reason, "could not be read") || !strings.Contains(st.Reason, "retrying") {
		t.Fatalf("after a 503: %+v", st)
	}
}

// waitRead, which --once uses, returns when the first scrape has ended,
// not before; at once for a denied user; and when its context ends.
func TestWaitReadWaitsForTheFirstScrape(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		release := make(chan struct{})
		m := &serverMetrics{
			get: func(context.Context) ([]byte, error) {
				<-release
				return nil, apierrors.NewForbidden(schema.GroupResource{}, "", fmt.Errorf("no"))
			},
			hosts:     func(context.Context) []string { return nil },
			resources: map[string]schema.GroupResource{"configmaps": {Resource: "configmaps"}},
			forbidden: metricsPermission("jane"),
			demand:    make(chan struct{}, 1),
		}
		ctx, stop := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		defer wg.Wait()
		defer stop() // before the wait: a loop that scrapes on must still end
		wg.Go(func() { m.run(ctx) })
		waited := make(chan struct{})
		wg.Go(func() { defer close(waited); m.waitRead(context.Background()) })
		// In the bubble, the timer fires only once both goroutines are
		// blocked: the scrape held, waitRead still waiting.
		select {
		case <-waited:
			t.Fatal("waitRead returned before the first scrape ended")
		case <-time.After(100 * time.Millisecond):
		}
		close(release)
		<-waited
		if st := m.stats()["configmaps"]; !strings.Contains(st.Reason, "which jane may not") {
			t.Fatalf("after waitRead: %+v", st)
		}
		atOnce, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		m.waitRead(atOnce) // after the first scrape
		(&serverMetrics{denied: "denied", resources: m.resources}).waitRead(atOnce)
		if atOnce.Err() != nil {
			t.Fatal("waitRead waited after the first scrape, or for a denied user")
		}

		ended, cancelEnded := context.WithTimeout(context.Background(), 10*time.Millisecond)
		defer cancelEnded()
		(&serverMetrics{resources: m.resources}).waitRead(ended) // never scraped: returns with ctx
	})
}

// Light by default: nobody asks, nothing is read; asked all along, the
// loop reads at its pace and no faster.
func TestServerMetricsAreReadOnlyWhenAsked(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var asked atomic.Int32
		m := &serverMetrics{
			get: func(context.Context) ([]byte, error) {
				asked.Add(1)
				return []byte("# nothing\n"), nil
			},
			hosts:     func(context.Context) []string { return nil },
			resources: map[string]schema.GroupResource{"configmaps": {Resource: "configmaps"}},
			every:     time.Hour,
			demand:    make(chan struct{}, 1),
		}
		ctx, stop := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() { defer close(done); m.run(ctx) }()
		defer func() { stop(); <-done }()

		// Absence takes a while to show: a loop reading unasked (it used to
		// read at once, then every 5 s) would have read within this. The
		// bubble's sleep returns once the loop is blocked, with nothing read.
		time.Sleep(200 * time.Millisecond)
		if n := asked.Load(); n != 0 {
			t.Fatalf("/metrics was read %d times before anybody asked", n)
		}
		read, cancel := context.WithTimeout(ctx, 10*time.Second)
		defer cancel()
		m.waitRead(read) // --once asks for one reading
		if n := asked.Load(); n != 1 || read.Err() != nil {
			t.Fatalf("asked for one reading: %d reads (%v)", n, read.Err())
		}
		for range 100 { // a dashboard showing the figures, asking every tick
			m.want()
		}
		synctest.Wait() // the loop has taken the demand and waits out its hour
		if n := asked.Load(); n != 1 {
			t.Fatalf("%d reads within the hour the loop waits between two", n)
		}
	})
}
