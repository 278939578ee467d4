package kube

import (
	"context"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/source/local"
)

// waitFor bounds every wait on the cluster; askEvery paces a wait whose
// condition is a request to the API server, so polling does not load it.
const (
	waitFor  = 60 * time.Second
	askEvery = 50 * time.Millisecond
)

// flags are kubectl's flags pointing at the test cluster, as a user's
// command line would.
func flags(t *testing.T, kubeconfig, namespace string) *genericclioptions.ConfigFlags {
	t.Helper()
	f := genericclioptions.NewConfigFlags(true)
	*f.KubeConfig = kubeconfig
	*f.CacheDir = t.TempDir()
	if namespace != "" {
		*f.Namespace = namespace
	}
	return f
}

func testClients(t *testing.T, c *kubetest.Cluster) kubernetes.Interface {
	t.Helper()
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func namespace(t *testing.T, cs kubernetes.Interface) string {
	t.Helper()
	// Subtests' names hold "/" and "_", which a namespace's may not.
	name := strings.Map(func(r rune) rune {
		if r >= 'a' && r <= 'z' || r >= '0' && r <= '9' {
			return r
		}
		return '-'
	}, strings.ToLower(t.Name()))
	if len(name) > 50 {
		name = name[:50]
	}
	name = strings.Trim(name, "-") + fmt.Sprintf("-%d", time.Now().UnixNano()%100000)
	_, err := cs.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return name
}

// start builds and runs a kube source, waits for it to sync (or not, when
// wantSynced is false) and stops it when the test ends.
func start(t *testing.T, o Options, wantSynced bool) *Source {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	s, err := New(ctx, o)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	wg.Go(func() { s.Run(ctx) })
	t.Cleanup(func() { cancel(); wg.Wait() })
	if wantSynced {
		wctx, wcancel := context.WithTimeout(ctx, waitFor)
		defer wcancel()
		if err := s.WaitSynced(wctx); err != nil {
			t.Fatalf("%v; reasons: %v", err, s.Pull(0, 0).Reasons)
		}
	}
	return s
}

// cached is the informer's store as key → resourceVersion.
func cached(s *Source, informer string) map[string]string {
	out := map[string]string{}
	for _, obj := range s.Informer(informer).Objects() {
		k, rv := local.KeyAndVersion(obj)
		out[k] = rv
	}
	return out
}

func serverConfigMaps(t *testing.T, cs kubernetes.Interface, ns string) map[string]string {
	t.Helper()
	l, err := cs.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	for _, cm := range l.Items {
		out[cm.Namespace+"/"+cm.Name] = cm.ResourceVersion
	}
	return out
}

// createConfigMaps creates n configmaps in ns, named by format and their
// index (cm-%02d: cm-00, cm-01…).
func createConfigMaps(t *testing.T, cs kubernetes.Interface, ns, format string, n int) {
	t.Helper()
	for i := range n {
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(ns, fmt.Sprintf(format, i)), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func configMap(ns, name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: map[string]string{"app": "t"}}, Data: map[string]string{"k": "v"}}
}

// TestConfigMapsAndPodsFollowTheServer: short names resolve, creates,
// updates and deletes reach the store and every listener, and the typed
// protobuf path is used for built-in kinds.
func TestConfigMapsAndPodsFollowTheServer(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	createConfigMaps(t, cs, ns, "cm-%d", 5)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := cs.CoreV1().Pods(ns).Create(bg, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slow := local.ListenerSpec{Name: "slow", Delay: time.Millisecond}
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"cm", "po"}, Listeners: []local.ListenerSpec{slow}}, true)
	if got := s.Title(); got != kubetest.ContextName {
		t.Errorf("title %q, want the context %q", got, kubetest.ContextName)
	}
	names := []string{}
	for _, e := range s.Informers() {
		names = append(names, e.Name())
	}
	if !slices.Equal(names, []string{"configmaps", "pods"}) || s.Decoding("configmaps") != Typed {
		t.Fatalf("informers %v, decoding %q", names, s.Decoding("configmaps"))
	}
	if got, want := cached(s, "configmaps"), serverConfigMaps(t, cs, ns); !maps.Equal(got, want) {
		t.Fatalf("cache %v, server %v", got, want)
	}

	if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, configMap(ns, "new"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	cm := configMap(ns, "cm-0")
	cm.Data["k"] = "changed"
	if _, err := cs.CoreV1().ConfigMaps(ns).Update(bg, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cs.CoreV1().ConfigMaps(ns).Delete(bg, "cm-1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := serverConfigMaps(t, cs, ns)
	waitfor.Within(t, waitFor, "the cache following the server", func() (bool, string) {
		got := cached(s, "configmaps")
		return maps.Equal(got, want), fmt.Sprint(got)
	})
	for _, name := range []string{"informtop", "slow"} {
		l := s.Listener("configmaps", name)
		waitfor.Within(t, waitFor, name+" hearing every change", func() (bool, string) {
			r := l.Record()
			return r.InitialAdds == 5 && r.Adds == 6 && r.Updates == 1 && r.Deletes == 1 && len(r.Anomalies) == 0, fmt.Sprintf("%+v", r)
		})
		if !maps.Equal(l.View(), want) {
			t.Errorf("%s's view %v, server %v", name, l.View(), want)
		}
	}
	obj, ok := s.Store("configmaps").Object(ns + "/cm-0")
	if !ok || !strings.Contains(obj.YAML, "changed") || strings.Contains(obj.YAML, "managedFields") {
		t.Errorf("object as shown: %+v", obj)
	}
	if mf := s.Informer("configmaps").Objects()[0].(*corev1.ConfigMap).ManagedFields; mf != nil {
		t.Errorf("managedFields are cached: %v", mf)
	}
}

// TestResolvesLikeKubectl: every spelling kubectl takes, and a typo gets
// the closest real names.
func TestResolvesLikeKubectl(t *testing.T) {
	c := kubetest.Shared(t)
	f := flags(t, c.Kubeconfig, "")
	mapper, err := f.ToRESTMapper()
	if err != nil {
		t.Fatal(err)
	}
	disco, err := f.ToDiscoveryClient()
	if err != nil {
		t.Fatal(err)
	}
	for arg, want := range map[string]string{
		"pods": "pods", "po": "pods", "pod": "pods", "deploy": "deployments.apps", "deployments.apps": "deployments.apps",
		"deployments.v1.apps": "deployments.apps", "Deployment": "deployments.apps", "cm": "configmaps", "ns": "namespaces",
	} {
		rs, err := resources(mapper, disco, []string{arg})
		if err != nil || len(rs) != 1 || rs[0].name() != want {
			t.Errorf("%q resolved to %v, %v; want %s", arg, rs, err, want)
		}
	}
	_, err = resources(mapper, disco, []string{"podz"})
	if err == nil || !strings.Contains(err.Error(), `"podz"`) || !strings.Contains(err.Error(), "pods") {
		t.Errorf("podz: %v; want a sentence suggesting pods", err)
	}
}

// TestPagedAndStreamedLists: 5,000 configmaps listed in pages of 100 show
// 50 pages; streamed (watch-list) they arrive without a LIST page.
func TestPagedAndStreamedLists(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	const n = 5000
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range n {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), configMap(ns, fmt.Sprintf("c-%04d", i)), metav1.CreateOptions{}); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	paged := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}, PageSize: 100, WatchList: WatchListOff}, true)
	r := paged.Pull(0, 0).Snapshots[0]
	if r.Store.Objects != n || r.Reflector.ListPages != n/100 {
		t.Errorf("paged: %d objects in %d pages, want %d in %d", r.Store.Objects, r.Reflector.ListPages, n, n/100)
	}
	streamed := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"configmaps"}, WatchList: WatchListOn}, true)
	r = streamed.Pull(0, 0).Snapshots[0]
	if r.Store.Objects != n || r.Reflector.ListPages != 0 || r.Reflector.Lists == 0 {
		t.Errorf("streamed: %d objects, %d LIST pages, %d lists; want %d, 0 and at least 1", r.Store.Objects, r.Reflector.ListPages, r.Reflector.Lists, n)
	}
}

// TestMetadataOnlyAndCRD: a CRD by its short name and plural.group, as
// unstructured objects, and metadata-only as PartialObjectMetadata.
func TestMetadataOnlyAndCRD(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	c.Widgets(t, ns, map[string]any{"metadata": map[string]any{"name": "w1"}, "size": 3})
	for _, arg := range []string{"wdg", "widgets.example.com"} {
		s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{arg}}, true)
		e := s.Informers()[0]
		objs := e.Objects()
		if e.Name() != "widgets.example.com" || s.Decoding(e.Name()) != Unstructured || len(objs) != 1 {
			t.Fatalf("%s: informer %s, decoding %q, %d objects", arg, e.Name(), s.Decoding(e.Name()), len(objs))
		}
		if u := objs[0].(*unstructured.Unstructured); u.Object["size"] != int64(3) {
			t.Errorf("%s: widget %v", arg, u.Object)
		}
	}
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"widgets", "namespaces"}, MetadataOnly: true}, true)
	for _, e := range s.Informers() {
		if s.Decoding(e.Name()) != Metadata {
			t.Errorf("%s decoded as %q", e.Name(), s.Decoding(e.Name()))
		}
		for _, obj := range e.Objects() {
			m, ok := obj.(*compactMeta)
			if !ok || m.GetManagedFields() != nil || m.GetName() == "" || m.GetUID() == "" || m.GetResourceVersion() == "" {
				t.Fatalf("%s caches %T %+v", e.Name(), obj, obj)
			}
		}
	}
}

// TestRestrictedUserSeesWhy: a user who may read configmaps but not pods
// gets configmaps synced and, for pods, the sentence naming the denial.
func TestRestrictedUserSeesWhy(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}})
	s := start(t, Options{Flags: flags(t, kc, ns), Resources: []string{"configmaps", "pods"}}, false)
	waitfor.Within(t, waitFor, "configmaps syncing", func() (bool, string) {
		snap := local.EngineOf(s.Informer("configmaps")).Snapshot()
		return snap.Synced, fmt.Sprint(s.Pull(0, 0).Reasons)
	})
	f := s.Pull(0, 0)
	why := f.Reasons["pods"]
	if !strings.Contains(why, "denied") || !strings.Contains(why, "list") || !strings.Contains(why, "pods") || !strings.Contains(why, ns) {
		t.Errorf("why pods did not sync: %q", why)
	}
	if _, ok := f.Reasons["configmaps"]; ok {
		t.Errorf("configmaps has a reason: %q", f.Reasons["configmaps"])
	}
	// Nor may this user read the API server's metrics: one sentence says
	// which permission would show them.
	if st := f.Server["configmaps"]; st.Available || !strings.Contains(st.Reason, "get on the non-resource URL /metrics") {
		t.Errorf("server figures for a user without /metrics: %+v", st)
	}
}

// TestUnwatchableResource: a resource discovery serves without list and
// watch says so instead of failing in a loop without a word.
func TestUnwatchableResource(t *testing.T) {
	c := kubetest.Shared(t)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, "default"), Resources: []string{"tokenreviews"}}, false)
	why := s.Pull(0, 0).Reasons["tokenreviews.authentication.k8s.io"]
	if !strings.Contains(why, "cannot be listed and watched") || !strings.Contains(why, "create") {
		t.Errorf("reason %q", why)
	}
}

// TestSeveralKubeconfigFiles: KUBECONFIG with several files merges them as
// kubectl does; the context may come from the second file.
func TestSeveralKubeconfigFiles(t *testing.T) {
	c := kubetest.Shared(t)
	dir := t.TempDir()
	first := filepath.Join(dir, "first")
	if err := os.WriteFile(first, []byte("apiVersion: v1\nkind: Config\npreferences: {}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("KUBECONFIG", first+string(os.PathListSeparator)+c.Kubeconfig)
	f := genericclioptions.NewConfigFlags(true)
	*f.CacheDir = t.TempDir()
	*f.Namespace = "default"
	s := start(t, Options{Flags: f, Resources: []string{"namespaces"}}, true)
	if s.Title() != kubetest.ContextName || s.Pull(0, 0).Snapshots[0].Store.Objects == 0 {
		t.Errorf("title %q, %d namespaces", s.Title(), s.Pull(0, 0).Snapshots[0].Store.Objects)
	}
}
