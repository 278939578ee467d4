package replay

import (
	"context"
	"fmt"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/kube"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/source/local"
)

// TestRecordAClusterReplayIt: configmaps and pods are recorded from a real
// API server while a workload creates, updates and deletes them and the
// API server restarts once (objects deleted meanwhile, so the reflector
// relists and hands out tombstones). The replay ends with the server's
// final state (keys and resourceVersions) in every store, and every
// listener is called exactly as the live run's was.
func TestRecordAClusterReplayIt(t *testing.T) {
	c := kubetest.Start(t) // its own cluster: this test stops the API server
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	ns := "rec-" + fmt.Sprint(time.Now().UnixNano()%100000)
	if _, err := cs.CoreV1().Namespaces().Create(bg, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		mustCreate(t, cs, ns, fmt.Sprintf("cm-%02d", i))
	}
	mustCreatePod(t, cs, ns, "pod-0")

	f := genericclioptions.NewConfigFlags(true)
	*f.KubeConfig, *f.CacheDir, *f.Namespace = c.Kubeconfig, t.TempDir(), ns
	ctx, cancel := context.WithCancel(bg)
	defer cancel()
	s, err := kube.New(ctx, kube.Options{Flags: f, Resources: []string{"configmaps", "pods"}, Queue: 0,
		Listeners: []local.ListenerSpec{{Name: "slow", Delay: 2 * time.Millisecond}}})
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "cluster.rec.zst")
	w, err := recording.Start(path, s.Source, recording.Header{Source: "test cluster", Informtop: "test"})
	if err != nil {
		t.Fatal(err)
	}
	for _, inf := range s.Informers() {
		for _, l := range s.Listeners(inf.Name()) {
			l.KeepSequence(true)
		}
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	stopped := false
	stop := func() {
		if !stopped {
			stopped = true
			cancel()
			wg.Wait()
		}
	}
	defer stop()
	wctx, wcancel := context.WithTimeout(ctx, testTimeout)
	defer wcancel()
	if err := s.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}

	// The workload: creates, updates, deletes.
	for i := 10; i < 15; i++ {
		mustCreate(t, cs, ns, fmt.Sprintf("cm-%02d", i))
	}
	for i := range 5 {
		cm, err := cs.CoreV1().ConfigMaps(ns).Get(bg, fmt.Sprintf("cm-%02d", i), metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cm.Data = map[string]string{"k": "changed"}
		if _, err := cs.CoreV1().ConfigMaps(ns).Update(bg, cm, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"cm-05", "cm-06"} {
		if err := cs.CoreV1().ConfigMaps(ns).Delete(bg, n, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustCreatePod(t, cs, ns, "pod-1")
	settledOn(t, s, cs, ns)

	// The restart: deletes through a second API server while the first is
	// down, so the reflector's relist finds them gone.
	c.StopAPIServer()
	second, err := kubernetes.NewForConfig(c.StartSecondAPIServer(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"cm-07", "cm-12"} {
		if err := second.CoreV1().ConfigMaps(ns).Delete(bg, n, metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := second.CoreV1().Pods(ns).Delete(bg, "pod-0", metav1.DeleteOptions{GracePeriodSeconds: new(int64)}); err != nil {
		t.Fatal(err)
	}
	c.StartAPIServer(t)
	mustCreate(t, cs, ns, "cm-after")
	want := settledOn(t, s, cs, ns)
	if r := s.Informer("configmaps").State().Reflector; r.Relists == 0 {
		t.Fatalf("the live run did not relist after the restart: %+v", r)
	}
	stop()
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	if st := w.Stats(); st.Dropped != 0 {
		t.Fatalf("the recorder dropped %d records", st.Dropped)
	}
	checkTakenFromTheWire(t, path)
	live := map[string][]string{}
	for _, inf := range s.Informers() {
		for _, l := range s.Listeners(inf.Name()) {
			for _, c := range l.Record().Calls {
				live[inf.Name()+"/"+l.Name()] = append(live[inf.Name()+"/"+l.Name()], callLine(c))
			}
		}
	}

	got := replayOnce(t, path, Options{})

	for name, st := range want {
		if d := diff(got.stores[name], st); d != "" {
			t.Errorf("replayed %s store differs from the server at the end of the recording: %s\nreplay: %v\nserver: %v", name, d, got.stores[name], st)
		}
	}
	if len(live) != 4 {
		t.Fatalf("live listeners %v", len(live))
	}
	tombstones := 0
	for id, calls := range live {
		// Per key, the order is the stream's; across keys, the engine hands
		// out one list's items in no fixed order, live as in a replay.
		liveKeys := byKey(calls)
		if len(liveKeys) != len(got.perKey[id]) {
			t.Errorf("listener %s: called for %d keys live, %d in the replay", id, len(liveKeys), len(got.perKey[id]))
		}
		for key, seq := range liveKeys {
			if d := diff(got.perKey[id][key], seq); d != "" {
				t.Errorf("listener %s, key %s: the replay's callbacks differ from the live run's: %s\nreplay: %q\nlive:   %q", id, key, d, got.perKey[id][key], seq)
			}
		}
		for _, c := range calls {
			if strings.Contains(c, "tomb=true") {
				tombstones++
			}
		}
	}
	if t.Failed() {
		t.Logf("the replay's log: %s", strings.Join(got.errors, "\n"))
		if rec, err := recording.Read(path); err == nil {
			for _, r := range rec.Records {
				if r.Kind != recording.KindCall && r.Kind != recording.KindEvent {
					opts := ""
					if r.Options != nil {
						opts = fmt.Sprintf("rv=%q sie=%v", r.Options.ResourceVersion, r.Options.SendInitialEvents != nil && *r.Options.SendInitialEvents)
					}
					t.Logf("recorded %s %s %s %s by=%s err=%+v", time.Duration(r.T), r.Informer, r.Kind, opts, r.By, r.Err)
				}
			}
		}
	}
	if tombstones == 0 {
		t.Error("the live run saw no tombstone: the restart did not exercise a relist with deletes")
	}
}

// settledOn waits until every cache and listener holds the server's
// configmaps and pods and every informer has handed its listeners all it
// processed, and returns them as the stores read (key@rv, sorted).
//
// The listeners' views alone are not enough: a relist's unchanged objects
// reach the listeners as syncs (OnUpdate with the same resourceVersion),
// which change no view, so the views match while the slow listener still
// has syncs queued. Stopping the live run then drops them, and the replay,
// which delivers them, seems to make calls the live run did not.
func settledOn(t *testing.T, s *kube.Source, cs kubernetes.Interface, ns string) map[string][]string {
	t.Helper()
	want := map[string][]string{}
	waitfor.Within(t, testTimeout, "the live caches to converge on the server's state", func() (bool, string) {
		want["configmaps"], want["pods"] = serverState(t, cs, ns)
		ok := true
		for _, inf := range s.Informers() {
			if !pipelineIdle(inf, false, "", false) {
				ok = false
			}
			if diff(storeOf(inf), want[inf.Name()]) != "" {
				ok = false
			}
			for _, l := range s.Listeners(inf.Name()) {
				var view []string
				for k, rv := range l.View() {
					view = append(view, k+"@"+rv)
				}
				sort.Strings(view)
				if diff(view, want[inf.Name()]) != "" {
					ok = false
				}
			}
		}
		return ok, fmt.Sprintf("the server holds %v", want)
	})
	return want
}

func serverState(t *testing.T, cs kubernetes.Interface, ns string) (cms, pods []string) {
	t.Helper()
	bg := context.Background()
	cl, err := cs.CoreV1().ConfigMaps(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, cm := range cl.Items {
		cms = append(cms, ns+"/"+cm.Name+"@"+cm.ResourceVersion)
	}
	pl, err := cs.CoreV1().Pods(ns).List(bg, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range pl.Items {
		pods = append(pods, ns+"/"+p.Name+"@"+p.ResourceVersion)
	}
	sort.Strings(cms)
	sort.Strings(pods)
	return cms, pods
}

func mustCreate(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Data: map[string]string{"k": "v"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func mustCreatePod(t *testing.T, cs kubernetes.Interface, ns, name string) {
	t.Helper()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "example.invalid/none"}}}}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), p, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

func byKey(calls []string) map[string][]string {
	out := map[string][]string{}
	for _, c := range calls {
		key, _, _ := strings.Cut(strings.Fields(c)[1], "@")
		out[key] = append(out[key], c)
	}
	return out
}

// checkTakenFromTheWire: the kube source's events were stored as the
// protobuf the API server sent, managedFields cut out.
func checkTakenFromTheWire(t *testing.T, path string) {
	t.Helper()
	rec, err := recording.Read(path)
	if err != nil {
		t.Fatal(err)
	}
	events := 0
	for _, r := range rec.Records {
		if r.Kind != recording.KindEvent || r.Type == "ERROR" {
			continue
		}
		events++
		objs, err := r.Objects()
		if r.ProtoKind == "" || err != nil || len(objs) != 1 {
			t.Fatalf("event at %s of %s stored as %q (%v): not the API server's protobuf", r.At(), r.Informer, r.ProtoKind, err)
		}
		if md, _ := objs[0]["metadata"].(map[string]any); md["managedFields"] != nil {
			t.Fatalf("event at %s of %s kept its managedFields", r.At(), r.Informer)
		}
	}
	if events == 0 {
		t.Fatal("no watch event recorded")
	}
}
