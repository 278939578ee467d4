package kube

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/cli-runtime/pkg/genericclioptions"
	applycorev1 "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/dynamic/dynamicinformer"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/source/local"
)

// BenchmarkSync compares, against the same real API server, informtop's
// kube source with the informers a client-go user would write and with
// `kubectl get`, over the same objects: 10,000 configmaps and 5,000 pods,
// each kind in a namespace of its own, created once per test binary. Every
// variant watches only that namespace, so it must hold exactly the
// dataset's objects. Per variant:
//
//   - ns/op: from starting the informer to its having synced, handlers
//     included (kube.New's discovery and access checks, and building a
//     client, are outside the timer); for kubectl, the process's run;
//   - ns/fastest: the fastest of those syncs, less sensitive to a busy
//     machine than the mean;
//   - cpu-ns/op: CPU time (user and system) of the process that synced;
//   - B/object: the live heap the informer keeps once synced, after two
//     collections, over the objects it holds; kubectl reports its
//     maxRSS-MB instead.
//
// X-vs-Y alternates the two variants' syncs and reports the ratio of their
// times (and of their CPU times), the fairest comparison on a shared
// machine. INFORMTOP_BENCH_HEAPPROFILE=dir writes, per variant, the heap
// profile of a synced informer.
//
//	make bench-kube
func BenchmarkSync(b *testing.B) {
	c := kubetest.Shared(b)
	// One discovery cache for every informtop and kubectl run, warm after
	// the first (a sub-benchmark's TempDir is removed between its runs).
	cacheDir := b.TempDir()
	for _, ds := range benchDatasets {
		e := &benchEnv{c: c, ds: ds, cacheDir: cacheDir}
		for _, v := range syncVariants {
			b.Run(ds.name+"/"+v.name, func(b *testing.B) {
				createFixtures(b, c)
				b.ResetTimer()
				benchSync(b, e, v)
			})
			if v.name == syncVariants[1].name {
				// The goal's comparison, measured side by side.
				x, y := syncVariants[0], syncVariants[1]
				b.Run(ds.name+"/"+x.name+"-vs-"+y.name, func(b *testing.B) {
					createFixtures(b, c)
					b.ResetTimer()
					benchRatio(b, e, x, y)
				})
			}
		}
	}
}

// benchDataset is one resource's objects in a namespace of their own.
type benchDataset struct {
	name      string // configmaps-10k
	resource  string // as kubectl and informtop take it
	gvr       schema.GroupVersionResource
	namespace string
	n         int
	create    func(ctx context.Context, cs kubernetes.Interface, ns string, i int) error
}

var benchDatasets = []*benchDataset{
	{name: "configmaps-10k", resource: "configmaps", gvr: corev1.SchemeGroupVersion.WithResource("configmaps"),
		namespace: "bench-configmaps", n: 10000, create: applyConfigMap},
	{name: "pods-5k", resource: "pods", gvr: corev1.SchemeGroupVersion.WithResource("pods"),
		namespace: "bench-pods", n: 5000, create: createPod},
}

var benchFixtures struct {
	once sync.Once
	err  error
}

// createFixtures creates every dataset's objects, once per test binary
// (the cluster's lifetime), outside the timer of the first benchmark.
func createFixtures(b *testing.B, c *kubetest.Cluster) {
	b.Helper()
	benchFixtures.once.Do(func() {
		began := time.Now()
		cfg := c.RESTConfig()
		cfg.QPS = -1 // no client-side rate limit: the server is the bound
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			benchFixtures.err = err
			return
		}
		for _, ds := range benchDatasets {
			if err := createMany(cs, ds.namespace, ds.n, ds.create); err != nil {
				benchFixtures.err = err
				return
			}
		}
		b.Logf("created the objects in %s; %s", time.Since(began).Round(time.Second),
			objectSizes(cs, benchDatasets[0].namespace, benchDatasets[1].namespace))
		// Let the server settle after the writes (its garbage collection,
		// etcd's) before the first variant is timed.
		time.Sleep(5 * time.Second)
	})
	if benchFixtures.err != nil {
		b.Fatal(benchFixtures.err)
	}
}

// createMany creates namespace ns and n objects in it with 16 requests in
// flight.
func createMany(cs kubernetes.Interface, ns string, n int, create func(context.Context, kubernetes.Interface, string, int) error) error {
	ctx := context.Background()
	_, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
	)
	next := make(chan int)
	for range 16 {
		wg.Go(func() {
			for i := range next {
				if err := create(ctx, cs, ns, i); err != nil {
					mu.Lock()
					if first == nil {
						first = fmt.Errorf("creating object %d in %s: %w", i, ns, err)
					}
					mu.Unlock()
				}
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return first
}

// applyConfigMap server-side applies an application's configuration as a
// deploy tool would: five keys, about 1 KB of data, four labels and two
// annotations; the server records the apply in managedFields.
func applyConfigMap(ctx context.Context, cs kubernetes.Interface, ns string, i int) error {
	app := fmt.Sprintf("svc-%04d", i/4)
	props := fmt.Sprintf("server.port=8080\nserver.shutdown=graceful\nspring.application.name=%s\n"+
		"spring.datasource.url=jdbc:postgresql://db-%d.data.svc.cluster.local:5432/%s\n"+
		"spring.datasource.hikari.maximum-pool-size=20\nspring.jpa.open-in-view=false\n"+
		"management.endpoints.web.exposure.include=health,info,prometheus\n"+
		"management.endpoint.health.probes.enabled=true\nlogging.level.root=INFO\n"+
		"logging.level.org.hibernate.SQL=WARN\ncache.ttl=%ds\nfeature.rollout.percentage=%d\n", app, i%7, app, 60+i%300, i%100)
	cm := applycorev1.ConfigMap(fmt.Sprintf("%s-config-%d", app, i%4), ns).
		WithLabels(map[string]string{
			"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop",
			"app.kubernetes.io/managed-by": "Helm", "helm.sh/chart": "service-1.4.2",
		}).
		WithAnnotations(map[string]string{"meta.helm.sh/release-name": app, "meta.helm.sh/release-namespace": ns}).
		WithData(map[string]string{
			"application.properties": props,
			"LOG_LEVEL":              "info",
			"FEATURE_FLAGS":          `{"newCheckout":true,"recommendations":false,"searchV2":true,"darkMode":false}`,
			"UPSTREAM_URL":           fmt.Sprintf("http://%s-upstream.%s.svc.cluster.local:8080/api/v1", app, ns),
			"TIMEOUT_SECONDS":        "30",
		})
	_, err := cs.CoreV1().ConfigMaps(ns).Apply(ctx, cm, metav1.ApplyOptions{FieldManager: "helm", Force: true})
	return err
}

// createPod creates a pod as a ReplicaSet controller would (one or two
// containers, labels, an owner reference) and then reports its status as
// a kubelet would, so it carries both managedFields entries of a running
// pod.
func createPod(ctx context.Context, cs kubernetes.Interface, ns string, i int) error {
	app := fmt.Sprintf("svc-%04d", i/10)
	hash := fmt.Sprintf("%010x", uint64(i/10)*2654435761)[:10]
	container := func(name, image string, port int32, cpu, mem string) corev1.Container {
		return corev1.Container{
			Name: name, Image: image,
			Ports: []corev1.ContainerPort{{Name: "http", ContainerPort: port, Protocol: corev1.ProtocolTCP}},
			Env: []corev1.EnvVar{
				{Name: "APP_NAME", Value: app},
				{Name: "POD_NAME", ValueFrom: &corev1.EnvVarSource{FieldRef: &corev1.ObjectFieldSelector{FieldPath: "metadata.name"}}},
				{Name: "JAVA_OPTS", Value: "-XX:MaxRAMPercentage=75 -XX:+UseG1GC"},
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: apiresource.MustParse(cpu), corev1.ResourceMemory: apiresource.MustParse(mem)},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: apiresource.MustParse(mem)},
			},
			ReadinessProbe: &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: "/healthz", Port: intstr.FromInt32(port)}}, PeriodSeconds: 10},
			VolumeMounts:   []corev1.VolumeMount{{Name: "config", MountPath: "/etc/app"}},
		}
	}
	containers := []corev1.Container{container("app", "registry.example.com/shop/"+app+":1.4.2", 8080, "100m", "256Mi")}
	if i%3 == 0 {
		containers = append(containers, container("proxy", "envoyproxy/envoy:v1.31.0", 15001, "50m", "64Mi"))
	}
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: ns, Name: fmt.Sprintf("%s-%s-%05d", app, hash, i),
			Labels: map[string]string{"app.kubernetes.io/name": app, "app.kubernetes.io/part-of": "shop", "pod-template-hash": hash},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "apps/v1", Kind: "ReplicaSet", Name: app + "-" + hash,
				UID: types.UID(fmt.Sprintf("8d6c7a3e-0000-4000-8000-%012d", i/10)), Controller: ptr(true), BlockOwnerDeletion: ptr(true)}},
		},
		Spec: corev1.PodSpec{
			Containers: containers,
			NodeName:   fmt.Sprintf("node-%02d", i%50),
			Volumes: []corev1.Volume{{Name: "config", VolumeSource: corev1.VolumeSource{ConfigMap: &corev1.ConfigMapVolumeSource{
				LocalObjectReference: corev1.LocalObjectReference{Name: app + "-config-0"}}}}},
		},
	}
	created, err := cs.CoreV1().Pods(ns).Create(ctx, pod, metav1.CreateOptions{FieldManager: "kube-controller-manager"})
	if err != nil {
		return err
	}
	now := metav1.Now()
	ip := fmt.Sprintf("10.%d.%d.%d", 100+i/65536, i/256%256, i%256)
	host := fmt.Sprintf("192.168.0.%d", 10+i%50)
	cond := func(t corev1.PodConditionType) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: corev1.ConditionTrue, LastTransitionTime: now}
	}
	created.Status = corev1.PodStatus{
		Phase: corev1.PodRunning,
		Conditions: []corev1.PodCondition{cond("PodReadyToStartContainers"), cond(corev1.PodInitialized),
			cond(corev1.PodReady), cond(corev1.ContainersReady), cond(corev1.PodScheduled)},
		HostIP: host, HostIPs: []corev1.HostIP{{IP: host}},
		PodIP: ip, PodIPs: []corev1.PodIP{{IP: ip}},
		StartTime: &now, QOSClass: created.Status.QOSClass,
	}
	for j, c := range created.Spec.Containers {
		created.Status.ContainerStatuses = append(created.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: c.Name, Image: c.Image, ImageID: c.Image + "@sha256:4b1c9f0e6a5d3c2b1a09f8e7d6c5b4a39281706f5e4d3c2b1a0f9e8d7c6b5a4",
			ContainerID: fmt.Sprintf("containerd://%064x", i*2+j), Ready: true, Started: ptr(true),
			State: corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}},
		})
	}
	_, err = cs.CoreV1().Pods(ns).UpdateStatus(ctx, created, metav1.UpdateOptions{FieldManager: "kubelet"})
	return err
}

func ptr[T any](v T) *T { return &v }

// objectSizes describes the objects as the server sends them.
func objectSizes(cs kubernetes.Interface, cmNS, podNS string) string {
	ctx := context.Background()
	cms, err1 := cs.CoreV1().ConfigMaps(cmNS).List(ctx, metav1.ListOptions{Limit: 100})
	pods, err2 := cs.CoreV1().Pods(podNS).List(ctx, metav1.ListOptions{Limit: 100})
	if err := errors.Join(err1, err2); err != nil || len(cms.Items) == 0 || len(pods.Items) == 0 {
		return fmt.Sprintf("(sizes unknown: %v)", err)
	}
	var cmAll, cmMF, podAll, podMF int
	for i := range cms.Items {
		cmAll += cms.Items[i].Size()
		cmMF += managedFieldsSize(cms.Items[i].ManagedFields)
	}
	for i := range pods.Items {
		podAll += pods.Items[i].Size()
		podMF += managedFieldsSize(pods.Items[i].ManagedFields)
	}
	return fmt.Sprintf("protobuf size per object: configmap %d B (managedFields %d B), pod %d B (managedFields %d B)",
		cmAll/len(cms.Items), cmMF/len(cms.Items), podAll/len(pods.Items), podMF/len(pods.Items))
}

func managedFieldsSize(mf []metav1.ManagedFieldsEntry) int {
	n := 0
	for i := range mf {
		n += mf[i].Size()
	}
	return n
}

// syncRun is one informer (or process) built outside the timer.
type syncRun struct {
	// sync starts it and returns once it has synced; it alone is timed.
	sync func(ctx context.Context) error
	// check returns how many objects it holds, or an error when they are
	// not what the variant should cache.
	check func() (int, error)
	// stop ends every goroutine sync started.
	stop func()
	// maxRSS and cpu are set by process variants, which report the
	// process's maximum RSS instead of heap, and its CPU time.
	maxRSS int64
	cpu    time.Duration
}

type syncVariant struct {
	name  string
	build func(b *testing.B, e *benchEnv) *syncRun
}

// benchEnv is what a variant is built from.
type benchEnv struct {
	c        *kubetest.Cluster
	ds       *benchDataset
	cacheDir string // kubectl's --cache-dir
}

// syncVariants run in pairs: informtop's way, then client-go's.
var syncVariants = []syncVariant{
	{"informtop", informtopVariant(false)},
	{"client-go-typed", clientGoTyped(runtimeContentTypeProtobuf)},
	{"client-go-typed-json", clientGoTyped("")},
	{"informtop-unstructured", informtopUnstructured},
	{"client-go-dynamic", clientGoDynamic},
	{"informtop-metadata", informtopVariant(true)},
	{"client-go-metadata", clientGoMetadata},
	{"kubectl", kubectlGet},
}

const runtimeContentTypeProtobuf = "application/vnd.kubernetes.protobuf"

func benchSync(b *testing.B, e *benchEnv, v syncVariant) {
	var perObject, rss float64
	var cpu time.Duration
	fastest := time.Duration(math.MaxInt64)
	for i := range b.N {
		m := syncOnce(b, e, v, i == b.N-1)
		fastest = min(fastest, m.took)
		cpu += m.cpu
		perObject += m.perObject
		rss += float64(m.maxRSS)
	}
	b.ReportMetric(float64(e.ds.n), "objects")
	b.ReportMetric(float64(fastest.Nanoseconds()), "ns/fastest")
	b.ReportMetric(float64(cpu.Nanoseconds())/float64(b.N), "cpu-ns/op")
	if rss > 0 {
		b.ReportMetric(rss/float64(b.N)/1024, "maxRSS-MB")
	} else {
		b.ReportMetric(perObject/float64(b.N), "B/object")
	}
}

// benchRatio alternates two variants, in turn first, so that both see the
// same load on a shared machine, and reports the ratio of their total
// sync times: "ratio" is a's time over b's.
func benchRatio(b *testing.B, e *benchEnv, x, y syncVariant) {
	var tx, ty, cx, cy time.Duration
	for i := range b.N {
		var mx, my syncMeasure
		if i%2 == 0 {
			mx = syncOnce(b, e, x, false)
			my = syncOnce(b, e, y, false)
		} else {
			my = syncOnce(b, e, y, false)
			mx = syncOnce(b, e, x, false)
		}
		tx, ty, cx, cy = tx+mx.took, ty+my.took, cx+mx.cpu, cy+my.cpu
	}
	b.ReportMetric(float64(e.ds.n), "objects")
	b.ReportMetric(float64(tx.Nanoseconds())/float64(b.N), "ns/"+x.name)
	b.ReportMetric(float64(ty.Nanoseconds())/float64(b.N), "ns/"+y.name)
	b.ReportMetric(tx.Seconds()/ty.Seconds(), "ratio")
	b.ReportMetric(cx.Seconds()/cy.Seconds(), "cpu-ratio")
}

type syncMeasure struct {
	took      time.Duration
	cpu       time.Duration // user and system time of the process that synced
	perObject float64       // live heap after the sync over the objects held
	maxRSS    int64         // KiB, of a process variant
}

// syncOnce builds the variant with the timer stopped, times its sync,
// checks what it holds and stops it.
func syncOnce(b *testing.B, e *benchEnv, v syncVariant, last bool) syncMeasure {
	b.StopTimer()
	before := liveHeap()
	r := v.build(b, e)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	b.StartTimer()
	began, cpuBefore := time.Now(), cpuTime()
	err := r.sync(ctx)
	took, cpu := time.Since(began), cpuTime()-cpuBefore
	b.StopTimer()
	if r.cpu > 0 {
		cpu = r.cpu
	}
	after := liveHeap()
	if dir := os.Getenv(envHeapProfile); dir != "" && last && err == nil {
		writeHeapProfile(b, dir)
	}
	n, cerr := r.check()
	runtime.KeepAlive(r)
	cancel()
	r.stop()
	if err = errors.Join(err, cerr); err == nil && n != e.ds.n {
		err = fmt.Errorf("%d objects cached, the server has %d", n, e.ds.n)
	}
	if err != nil {
		b.Fatalf("%s: %v", v.name, err)
	}
	return syncMeasure{took: took, cpu: cpu, perObject: (float64(after) - float64(before)) / float64(n), maxRSS: r.maxRSS}
}

// envHeapProfile names a directory where each benchmark writes the heap
// profile of its last iteration, taken while the informer holds every
// object (run with -memprofilerate 1 for exact figures).
const envHeapProfile = "INFORMTOP_BENCH_HEAPPROFILE"

func writeHeapProfile(b *testing.B, dir string) {
	name := filepath.Join(dir, strings.NewReplacer("/", "_", " ", "_").Replace(b.Name())+".heap")
	f, err := os.Create(name)
	if err == nil {
		err = errors.Join(pprof.Lookup("heap").WriteTo(f, 0), f.Close())
	}
	if err != nil {
		b.Fatal(err)
	}
}

// cpuTime is this process's user and system time so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// liveHeap is the heap in use after two full collections.
func liveHeap() uint64 {
	runtime.GC()
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	return m.HeapAlloc
}

// benchFlags are kubectl's flags for the dataset's namespace, with the
// shared discovery cache.
func benchFlags(e *benchEnv) *genericclioptions.ConfigFlags {
	f := genericclioptions.NewConfigFlags(true)
	*f.KubeConfig = e.c.Kubeconfig
	*f.CacheDir = e.cacheDir
	*f.Namespace = e.ds.namespace
	return f
}

// startSource runs a kube Source: sync starts it and waits for every
// informer and listener registration.
func startSource(s *Source, check func() (int, error)) *syncRun {
	var wg sync.WaitGroup
	var cancelRun context.CancelFunc
	return &syncRun{
		sync: func(ctx context.Context) error {
			runCtx, cancel := context.WithCancel(context.Background())
			cancelRun = cancel
			wg.Go(func() { s.Run(runCtx) })
			return s.WaitSynced(ctx)
		},
		check: check,
		stop: func() {
			if cancelRun != nil {
				cancelRun()
			}
			wg.Wait()
		},
	}
}

// storeObjects counts the objects of the source's only informer and checks
// each with ok.
func storeObjects(s *Source, ok func(obj any) error) func() (int, error) {
	return func() (int, error) {
		objs := s.Informers()[0].Objects()
		for _, obj := range objs {
			if err := ok(obj); err != nil {
				return len(objs), err
			}
		}
		return len(objs), nil
	}
}

// withoutManagedFields checks the default transform ran.
func withoutManagedFields(obj any) error {
	a, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if a.GetManagedFields() != nil {
		return fmt.Errorf("%T %s keeps its managedFields", obj, a.GetName())
	}
	return nil
}

// withManagedFields checks client-go kept them, as it does by default.
func withManagedFields(obj any) error {
	a, err := meta.Accessor(obj)
	if err != nil {
		return err
	}
	if a.GetManagedFields() == nil {
		return fmt.Errorf("%T %s has no managedFields", obj, a.GetName())
	}
	return nil
}

// informtopVariant is `informtop -n NS -r RESOURCE [--metadata-only]` with
// every other option at its default.
func informtopVariant(metadataOnly bool) func(*testing.B, *benchEnv) *syncRun {
	return func(b *testing.B, e *benchEnv) *syncRun {
		ds := e.ds
		o := Options{Flags: benchFlags(e), Resources: []string{ds.resource}, MetadataOnly: metadataOnly}
		s, err := New(context.Background(), o)
		if err != nil {
			b.Fatal(err)
		}
		want := Typed
		if metadataOnly {
			want = Metadata
		}
		if got := s.Decoding(ds.gvr.GroupResource().String()); got != want {
			b.Fatalf("decoding %q, want %q", got, want)
		}
		return startSource(s, storeObjects(s, func(obj any) error {
			if _, ok := obj.(*compactMeta); ok != metadataOnly {
				return fmt.Errorf("informtop caches %T", obj)
			}
			return withoutManagedFields(obj)
		}))
	}
}

// informtopUnstructured is informtop's kube source decoding JSON into
// unstructured objects, as it does for CRDs. Options has no way to force
// that for a built-in kind, so this builds the Source as New does after
// discovery, through the same add, with the resource's kind renamed so
// that client-go's scheme does not recognize it (listWatch's test).
func informtopUnstructured(b *testing.B, e *benchEnv) *syncRun {
	ds := e.ds
	cfg, err := benchFlags(e).ToRESTConfig()
	if err != nil {
		b.Fatal(err)
	}
	cs, err := newClients(cfg)
	if err != nil {
		b.Fatal(err)
	}
	kind := strings.TrimSuffix(strings.ToUpper(ds.resource[:1])+ds.resource[1:], "s")
	r := resource{arg: ds.resource, mapping: &meta.RESTMapping{
		Resource:         ds.gvr,
		GroupVersionKind: ds.gvr.GroupVersion().WithKind(kind + "NotInTheScheme"),
		Scope:            meta.RESTScopeNamespace,
	}}
	s := &Source{server: cfg.Host, facts: map[string]informerFacts{},
		live: liveClients{clients: cs, opts: Options{Resources: []string{ds.resource}, WatchList: WatchListAuto}}}
	s.Source = local.New(local.Config{Kind: "kube", Title: "bench", Status: s.status, Reason: s.reason})
	if err := s.add(r, ds.namespace, "", ""); err != nil {
		b.Fatal(err)
	}
	if got := s.Decoding(r.name()); got != Unstructured {
		b.Fatalf("decoding %q, want %q", got, Unstructured)
	}
	return startSource(s, storeObjects(s, func(obj any) error {
		if _, ok := obj.(*unstructured.Unstructured); !ok {
			return fmt.Errorf("informtop caches %T", obj)
		}
		return withoutManagedFields(obj)
	}))
}

// restConfig is the kubeconfig's configuration, as a client-go program
// gets it from clientcmd.
func restConfig(b *testing.B, c *kubetest.Cluster) *rest.Config {
	cfg, err := clientcmd.BuildConfigFromFlags("", c.Kubeconfig)
	if err != nil {
		b.Fatal(err)
	}
	return cfg
}

// factory is what the three client-go informer factories have in common.
type factory interface {
	Start(stopCh <-chan struct{})
	Shutdown()
}

// startFactory runs inf, with one handler as a controller would have, and
// waits for both to sync, as informtop's WaitSynced does.
func startFactory(f factory, inf cache.SharedIndexInformer, ok func(obj any) error) *syncRun {
	reg, err := inf.AddEventHandler(cache.ResourceEventHandlerFuncs{AddFunc: func(any) {}})
	stopCh := make(chan struct{})
	return &syncRun{
		sync: func(ctx context.Context) error {
			if err != nil {
				return err
			}
			f.Start(stopCh)
			// Without polling, as the factories' WaitForCacheSyncWithContext
			// does: cache.WaitForCacheSync would round every sync up to its
			// 100 ms polling period.
			if !cache.WaitFor(ctx, "", inf.HasSyncedChecker(), reg.HasSyncedChecker()) {
				return errors.New("client-go's informer has not synced")
			}
			return nil
		},
		check: func() (int, error) {
			objs := inf.GetStore().List()
			for _, obj := range objs {
				if err := ok(obj); err != nil {
					return len(objs), err
				}
			}
			return len(objs), nil
		},
		stop: func() { close(stopCh); f.Shutdown() },
	}
}

// clientGoTyped is informers.NewSharedInformerFactory over a clientset,
// talking protobuf when contentType says so (client-go's default is JSON).
func clientGoTyped(contentType string) func(*testing.B, *benchEnv) *syncRun {
	return func(b *testing.B, e *benchEnv) *syncRun {
		ds := e.ds
		cfg := restConfig(b, e.c)
		cfg.ContentType = contentType
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			b.Fatal(err)
		}
		f := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace(ds.namespace))
		var inf cache.SharedIndexInformer
		switch ds.resource {
		case "configmaps":
			inf = f.Core().V1().ConfigMaps().Informer()
		case "pods":
			inf = f.Core().V1().Pods().Informer()
		default:
			b.Fatalf("no typed informer for %s", ds.resource)
		}
		return startFactory(f, inf, withManagedFields)
	}
}

// clientGoDynamic is dynamicinformer's informer: JSON into unstructured.
func clientGoDynamic(b *testing.B, e *benchEnv) *syncRun {
	ds := e.ds
	dyn, err := dynamic.NewForConfig(restConfig(b, e.c))
	if err != nil {
		b.Fatal(err)
	}
	f := dynamicinformer.NewFilteredDynamicSharedInformerFactory(dyn, 0, ds.namespace, nil)
	return startFactory(f, f.ForResource(ds.gvr).Informer(), func(obj any) error {
		if _, ok := obj.(*unstructured.Unstructured); !ok {
			return fmt.Errorf("dynamic informer caches %T", obj)
		}
		return withManagedFields(obj)
	})
}

// clientGoMetadata is metadatainformer's informer: PartialObjectMetadata,
// managedFields kept.
func clientGoMetadata(b *testing.B, e *benchEnv) *syncRun {
	ds := e.ds
	md, err := metadata.NewForConfig(restConfig(b, e.c))
	if err != nil {
		b.Fatal(err)
	}
	f := metadatainformer.NewFilteredSharedInformerFactory(md, 0, ds.namespace, nil)
	return startFactory(f, f.ForResource(ds.gvr).Informer(), func(obj any) error {
		if _, ok := obj.(*metav1.PartialObjectMetadata); !ok {
			return fmt.Errorf("metadata informer caches %T", obj)
		}
		return withManagedFields(obj)
	})
}

// kubectlGet is `kubectl get -n NS -o name RESOURCE` as a process, with a
// warm discovery cache; it reports the process's maximum RSS.
func kubectlGet(b *testing.B, e *benchEnv) *syncRun {
	c, ds := e.c, e.ds
	r := &syncRun{stop: func() {}}
	var out bytes.Buffer
	r.sync = func(ctx context.Context) error {
		cmd := exec.CommandContext(ctx, c.Kubectl(), "--kubeconfig", c.Kubeconfig,
			"--cache-dir", e.cacheDir, "get", "-n", ds.namespace, "-o", "name", ds.resource)
		cmd.Stdout = &out
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		if err := cmd.Run(); err != nil {
			return fmt.Errorf("kubectl: %v: %s", err, stderr.String())
		}
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.maxRSS = ru.Maxrss // KiB on Linux
			r.cpu = time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
		}
		return nil
	}
	r.check = func() (int, error) {
		n := strings.Count(out.String(), "\n")
		if !strings.HasPrefix(out.String(), strings.TrimSuffix(ds.resource, "s")+"/") {
			return n, fmt.Errorf("kubectl printed %.80q", out.String())
		}
		return n, nil
	}
	return r
}
