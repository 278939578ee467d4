package kube

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/cli-runtime/pkg/printers"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
)

// gadgetsGVR is a CRD with printer columns of its own: two always, one
// only with -o wide, and an Age of its own.
var gadgetsGVR = schema.GroupVersionResource{Group: "tables.example.com", Version: "v1", Resource: "gadgets"}

// gadgets installs the gadgets CRD once per cluster and creates the
// gadgets given in ns, once the API server serves it.
func gadgets(t *testing.T, c *kubetest.Cluster, ns string, objs ...map[string]any) {
	t.Helper()
	dyn, err := dynamic.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	col := func(name, typ, path string, priority int64) map[string]any {
		return map[string]any{"name": name, "type": typ, "jsonPath": path, "priority": priority, "description": "the gadget's " + strings.ToLower(name)}
	}
	crd := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiextensions.k8s.io/v1", "kind": "CustomResourceDefinition",
		"metadata": map[string]any{"name": "gadgets.tables.example.com"},
		"spec": map[string]any{
			"group": "tables.example.com", "scope": "Namespaced",
			"names": map[string]any{"plural": "gadgets", "singular": "gadget", "kind": "Gadget"},
			"versions": []any{map[string]any{"name": "v1", "served": true, "storage": true,
				"schema": map[string]any{"openAPIV3Schema": map[string]any{"type": "object", "x-kubernetes-preserve-unknown-fields": true}},
				"additionalPrinterColumns": []any{
					col("Size", "integer", ".spec.size", 0), col("Colour", "string", ".spec.colour", 0),
					col("Phase", "string", ".status.phase", 1), col("Age", "date", ".metadata.creationTimestamp", 0),
				}}},
		},
	}}
	crds := schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	if _, err := dyn.Resource(crds).Create(context.Background(), crd, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	for _, o := range objs {
		u := &unstructured.Unstructured{Object: o}
		u.SetAPIVersion("tables.example.com/v1")
		u.SetKind("Gadget")
		// The CRD is served a moment after it is created.
		waitfor.Every(t, askEvery, waitFor, "a gadget created", func() (bool, string) {
			_, err := dyn.Resource(gadgetsGVR).Namespace(ns).Create(context.Background(), u, metav1.CreateOptions{})
			return err == nil, fmt.Sprint(err)
		})
	}
}

// kubectlPrints is what kubectl get -o wide prints for one object: the
// server's own Table for it, decoded as kubectl decodes it and printed by
// cli-runtime's table printer, as headers and cells.
func kubectlPrints(t *testing.T, cs kubernetes.Interface, path string) (headers, cells []string) {
	t.Helper()
	raw, err := cs.Discovery().RESTClient().Get().AbsPath(path).
		SetHeader("Accept", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json").Do(context.Background()).Raw()
	if err != nil {
		t.Fatal(err)
	}
	obj, _, err := unstructured.UnstructuredJSONScheme.Decode(raw, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	var table metav1.Table
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.(*unstructured.Unstructured).Object, &table); err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if err := printers.NewTablePrinter(printers.PrintOptions{Wide: true}).PrintObj(&table, &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimRight(out.String(), "\n"), "\n")
	if len(lines) != 2 {
		t.Fatalf("kubectl printed %q, want a header and one row", out.String())
	}
	// Columns start where the header's names do (a name may hold one
	// space, as NOMINATED NODE; the printer puts three between columns),
	// and an empty cell is blank under its header.
	starts := regexp.MustCompile(`\S+( \S+)*`).FindAllStringIndex(lines[0], -1)
	for i, s := range starts {
		end := len(lines[1])
		if i+1 < len(starts) {
			end = min(starts[i+1][0], end)
		}
		headers = append(headers, lines[0][s[0]:s[1]])
		cells = append(cells, strings.TrimSpace(lines[1][min(s[0], end):end]))
	}
	return headers, cells
}

// withoutNameAndAge drops kubectl's NAME and AGE, which the Store view
// shows its own way.
func withoutNameAndAge(headers, cells []string) ([]string, []string) {
	var h, c []string
	for i, name := range headers {
		if name != "NAME" && name != "AGE" {
			h, c = append(h, name), append(c, cells[i])
		}
	}
	return h, c
}

func columnNames(tb source.Table) []string {
	var out []string
	for _, c := range tb.Columns {
		out = append(out, c.Name)
	}
	return out
}

// TestTableRowsAreKubectls: pods, a deployment, a CRD's printer columns
// and a secret are printed as kubectl get -o wide prints them, read once
// per resourceVersion, and read again when the object changes.
func TestTableRowsAreKubectls(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	for _, name := range []string{"p1", "p2"} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := cs.CoreV1().Pods(ns).Create(bg, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	labels := map[string]string{"app": "d"}
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "d"}, Spec: appsv1.DeploymentSpec{
		Replicas: ptr[int32](2), Selector: &metav1.LabelSelector{MatchLabels: labels},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx:1.27"}}}},
	}}
	if _, err := cs.AppsV1().Deployments(ns).Create(bg, dep, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	secret := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "db"}, Data: map[string][]byte{"password": []byte("hunter2"), "user": []byte("admin")}}
	if _, err := cs.CoreV1().Secrets(ns).Create(bg, secret, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	gadgets(t, c, ns, map[string]any{"metadata": map[string]any{"name": "g1"}, "spec": map[string]any{"size": 3, "colour": "teal"}, "status": map[string]any{"phase": "Built"}})

	proxy := c.DropProxy(t)
	s := start(t, Options{Flags: flags(t, proxy.Kubeconfig, ns), Resources: []string{"pods", "deployments", "gadgets", "secrets"},
		WatchList: WatchListOff}, true) // the proxy reads watch events as plain JSON
	tr := s.Controls().Table
	if tr == nil {
		t.Fatal("the kube source offers no TableReader")
	}
	for _, tc := range []struct {
		informer, key, path string
		narrow              []string // the columns without -o wide
	}{
		{"pods", ns + "/p1", "/api/v1/namespaces/" + ns + "/pods/p1", []string{"READY", "STATUS", "RESTARTS"}},
		{"deployments.apps", ns + "/d", "/apis/apps/v1/namespaces/" + ns + "/deployments/d", []string{"READY", "UP-TO-DATE", "AVAILABLE"}},
		{"gadgets.tables.example.com", ns + "/g1", "/apis/tables.example.com/v1/namespaces/" + ns + "/gadgets/g1", []string{"SIZE", "COLOUR"}},
		{"secrets", ns + "/db", "/api/v1/namespaces/" + ns + "/secrets/db", []string{"TYPE", "DATA"}},
	} {
		t.Run(tc.informer, func(t *testing.T) {
			headers, cells := withoutNameAndAge(kubectlPrints(t, cs, tc.path))
			wide, err := tr.Rows(bg, tc.informer, []string{tc.key}, true)
			if err != nil {
				t.Fatal(err)
			}
			if got := columnNames(wide); !slices.Equal(got, headers) {
				t.Errorf("wide columns %q, kubectl prints %q", got, headers)
			}
			if got := wide.Rows[tc.key]; !slices.Equal(got, cells) {
				t.Errorf("wide row %q, kubectl prints %q", got, cells)
			}
			narrow, err := tr.Rows(bg, tc.informer, []string{tc.key}, false)
			if err != nil {
				t.Fatal(err)
			}
			if got := columnNames(narrow); !slices.Equal(got, tc.narrow) {
				t.Errorf("columns %q, want %q", got, tc.narrow)
			}
			if len(narrow.Rows[tc.key]) != len(tc.narrow) {
				t.Errorf("narrow row %q, want %d cells", narrow.Rows[tc.key], len(tc.narrow))
			}
			if n := proxy.Requests("GET", tc.path); n != 1 {
				t.Errorf("%d GETs of %s for two asks, want 1: the row is kept for its resourceVersion", n, tc.path)
			}
			if row := fmt.Sprint(wide.Rows[tc.key]); strings.Contains(row, "hunter2") || strings.Contains(row, "aHVudGVy") {
				t.Errorf("a secret's row shows its data: %s", row)
			}
			t.Logf("%s: %q %q", tc.informer, columnNames(wide), wide.Rows[tc.key])
		})
	}
	// Back on pods after the other informers: their rows are read anew
	// (one informer's are kept at a time), a key not cached is not asked.
	pods, err := tr.Rows(bg, "pods", []string{ns + "/p1", ns + "/p2", ns + "/absent"}, false)
	if err != nil {
		t.Fatal(err)
	}
	if got := pods.Rows[ns+"/p2"]; !slices.Equal(got, []string{"0/1", "Pending", "0"}) || len(pods.Rows) != 2 {
		t.Errorf("pods %q: want p1 and p2, p2 Pending with none of one container ready", pods.Rows)
	}

	// A changed object is read again once the cache holds its new version.
	p1 := "/api/v1/namespaces/" + ns + "/pods/p1"
	before := proxy.Requests("GET", p1)
	patched, err := cs.CoreV1().Pods(ns).Patch(bg, "p1", "application/merge-patch+json", []byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitfor.Within(t, waitFor, "the cache holding the patched pod", func() (bool, string) {
		rv, _ := s.cachedVersion("pods", ns+"/p1")
		return rv == patched.ResourceVersion, rv
	})
	for range 3 {
		if _, err := tr.Rows(bg, "pods", []string{ns + "/p1", ns + "/p2"}, false); err != nil {
			t.Fatal(err)
		}
	}
	if got := proxy.Requests("GET", p1) - before; got != 1 {
		t.Errorf("%d GETs of the changed pod for three asks, want 1", got)
	}
	if got := proxy.Requests("GET", "/api/v1/namespaces/"+ns+"/pods/p2"); got != 1 {
		t.Errorf("%d GETs of the unchanged pod, want 1", got)
	}
}

// TestTableForbiddenFallsBack: a user who may list and watch pods but not
// get them gets one sentence saying so, each time they ask.
func TestTableForbiddenFallsBack(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
	if _, err := cs.CoreV1().Pods(ns).Create(context.Background(), pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	kc := c.RestrictedUser(t, ns, []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"pods"}, Verbs: []string{"list", "watch"}}})
	s := start(t, Options{Flags: flags(t, kc, ns), Resources: []string{"pods"}}, true)
	for i := range 2 {
		_, err := s.Controls().Table.Rows(context.Background(), "pods", []string{ns + "/p"}, false)
		if err == nil || !strings.Contains(err.Error(), "no kubectl columns for pods") || !strings.Contains(err.Error(), "grant get on pods") {
			t.Fatalf("ask %d: %v; want a sentence saying get is denied", i, err)
		}
		t.Log(err)
	}
}

// RBAC denying get is asked again when the view comes back to the
// informer (get may have been granted meanwhile), not on every ask.
func TestTableDeniedIsAskedAgainOnReturn(t *testing.T) {
	tr, requests := fakeTables(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusForbidden)
		fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"Forbidden","code":403,"message":"samples \"s\" is forbidden"}`)
	})
	// Its columns are known, so asking with no key reads nothing.
	tr.byName["other"] = &tableOf{informer: "other", columns: []metav1.TableColumnDefinition{{Name: "Data"}}}
	ask := func(informer string) error {
		_, err := tr.Rows(context.Background(), informer, []string{"ns/s"}, false)
		return err
	}
	for range 3 {
		if err := ask("samples.metrics.example.com"); err == nil || !strings.Contains(err.Error(), "RBAC allows list but not get") {
			t.Fatalf("%v; want a sentence", err)
		}
	}
	if n := requests.Load(); n != 1 {
		t.Fatalf("%d requests for three asks, want 1", n)
	}
	if _, err := tr.Rows(context.Background(), "other", nil, false); err != nil {
		t.Fatal(err)
	}
	_ = ask("samples.metrics.example.com")
	if n := requests.Load(); n != 2 {
		t.Fatalf("%d requests after coming back, want 2", n)
	}
}

// fakeTables is a tables reader over an HTTP handler standing for the
// API server, with every key cached at resourceVersion "1".
func fakeTables(t *testing.T, h http.HandlerFunc) (*tables, *atomic.Int64) {
	t.Helper()
	requests := &atomic.Int64{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		h(w, r)
	}))
	t.Cleanup(srv.Close)
	res := []resource{{mapping: &meta.RESTMapping{Resource: schema.GroupVersionResource{Group: "metrics.example.com", Version: "v1", Resource: "samples"},
		Scope: meta.RESTScopeNamespace}}}
	return newTables(&rest.Config{Host: srv.URL}, res, func(string, string) (string, bool) { return "1", true }), requests
}

// An aggregated API that cannot print tables answers with the object, or
// 406: the view falls back with a sentence, and no other request follows.
func TestTableUnsupportedFallsBack(t *testing.T) {
	for name, h := range map[string]http.HandlerFunc{
		"object": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprint(w, `{"apiVersion":"metrics.example.com/v1","kind":"Sample","metadata":{"name":"s","namespace":"ns","resourceVersion":"1"}}`)
		},
		"406": func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusNotAcceptable)
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"NotAcceptable","code":406,"message":"only the following media types are accepted: application/json"}`)
		},
	} {
		t.Run(name, func(t *testing.T) {
			tr, requests := fakeTables(t, h)
			for range 3 {
				_, err := tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s", "ns/t"}, false)
				if err == nil || !strings.Contains(err.Error(), "no kubectl columns for samples.metrics.example.com: the API server prints no table") {
					t.Fatalf("%v; want a sentence saying the server prints no table", err)
				}
				t.Log(err)
			}
			if n := requests.Load(); n > 2 {
				t.Errorf("%d requests for three asks of two keys: a server without tables is asked once", n)
			}
		})
	}
}

// A server that fails for a while gets a sentence, and is asked again.
func TestTableFailureIsAskedAgain(t *testing.T) {
	var fail atomic.Bool
	fail.Store(true)
	tr, requests := fakeTables(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		if fail.Load() {
			w.WriteHeader(http.StatusServiceUnavailable)
			fmt.Fprint(w, `{"apiVersion":"v1","kind":"Status","status":"Failure","reason":"ServiceUnavailable","code":503,"message":"the backend is down"}`)
			return
		}
		fmt.Fprint(w, `{"apiVersion":"meta.k8s.io/v1","kind":"Table","columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Value","type":"number"},{"name":"Note","type":"string","priority":1}],`+
			`"rows":[{"cells":["s",0.5,"two\nlines"],"object":{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"name":"s","resourceVersion":"1"}}}]}`)
	})
	_, err := tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s"}, true)
	if err == nil || !strings.Contains(err.Error(), "the backend is down") || !strings.Contains(err.Error(), "asked for again") {
		t.Fatalf("%v; want a sentence with the server's reason", err)
	}
	fail.Store(false)
	got, err := tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s"}, true)
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(columnNames(got), []string{"VALUE", "NOTE"}) || !slices.Equal(got.Rows["ns/s"], []string{"0.5", "two..."}) || !got.Columns[1].Wide {
		t.Fatalf("%+v", got)
	}
	if _, err := tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s"}, true); err != nil || requests.Load() != 2 {
		t.Fatalf("%v, %d requests; want the row kept", err, requests.Load())
	}
}

// tableOfSample answers any GET with one row for the object asked, with
// its name as the only other cell.
func tableOfSample(w http.ResponseWriter, r *http.Request) {
	name := r.URL.Path[strings.LastIndex(r.URL.Path, "/")+1:]
	w.Header().Set("Content-Type", "application/json")
	fmt.Fprintf(w, `{"apiVersion":"meta.k8s.io/v1","kind":"Table","columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Echo","type":"string"}],`+
		`"rows":[{"cells":[%q,%q],"object":{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"name":%q,"resourceVersion":"1"}}}]}`, name, name, name)
}

// A page of twenty keys is read at most four at a time.
func TestTableReadsFourAtATime(t *testing.T) {
	var inFlight, most atomic.Int64
	gate := make(chan struct{})
	tr, _ := fakeTables(t, func(w http.ResponseWriter, r *http.Request) {
		n := inFlight.Add(1)
		defer inFlight.Add(-1)
		for m := most.Load(); n > m && !most.CompareAndSwap(m, n); m = most.Load() {
		}
		<-gate
		tableOfSample(w, r)
	})
	open := sync.OnceFunc(func() { close(gate) })
	t.Cleanup(open) // before the server closes, should the test fail first
	keys := make([]string, 20)
	for i := range keys {
		keys[i] = fmt.Sprintf("ns/s-%02d", i)
	}
	done := make(chan source.Table)
	go func() {
		tb, err := tr.Rows(context.Background(), "samples.metrics.example.com", keys, false)
		if err != nil {
			t.Error(err)
		}
		done <- tb
	}()
	waitfor.Within(t, waitFor, "four reads in flight", func() (bool, string) { return inFlight.Load() == tableInFlight, fmt.Sprint(inFlight.Load()) })
	open()
	tb := <-done
	if len(tb.Rows) != len(keys) || tb.Rows["ns/s-07"][0] != "s-07" {
		t.Fatalf("%d rows: %v", len(tb.Rows), tb.Rows)
	}
	if m := most.Load(); m > tableInFlight {
		t.Errorf("%d reads at once, want at most %d", m, tableInFlight)
	}
}

// The rows kept for one informer are bounded: past tableMaxRows only the
// keys of the ask stay with the new row.
func TestTableRowsAreBounded(t *testing.T) {
	tb := &tableOf{}
	for i := range tableMaxRows {
		tb.keep(fmt.Sprint(i), tableRow{asked: "1"}, nil)
	}
	tb.keep("new", tableRow{asked: "1"}, []string{"7", "new"})
	if len(tb.rows) != 2 || tb.rows["7"].asked != "1" || tb.rows["new"].asked != "1" {
		t.Fatalf("%d rows after passing the bound, want the two asked for", len(tb.rows))
	}
}

// A secret resource the user named (--redact) gets no table: its printer
// columns may read any field, and a logged response would show them.
func TestTableOfANamedSecretResourceIsNotAsked(t *testing.T) {
	p, err := redact.NewPolicy([]string{"samples.metrics.example.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := redact.Current()
	redact.SetCurrent(p)
	t.Cleanup(func() { redact.SetCurrent(prev) })
	tr, requests := fakeTables(t, tableOfSample)
	_, err = tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s"}, false)
	if err == nil || !strings.Contains(err.Error(), "secret resource") || requests.Load() != 0 {
		t.Fatalf("%v after %d requests; want a sentence and none", err, requests.Load())
	}
}

// A row is hidden as its object's YAML is: an object whose metadata (in
// the row, includeObject=Metadata) carries a last-applied copy of a
// Secret shows its cells by size (the view shows the name its own way);
// the same row without the copy shows them.
func TestTableRowOfAnObjectCopyingASecret(t *testing.T) {
	applied, err := json.Marshal(`{"apiVersion":"v1","kind":"Secret","data":{"password":"aHVudGVyMg=="}}`)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		annotations string
		want        []string
	}{
		{`{"` + redact.LastApplied + `":` + string(applied) + `}`, []string{redact.Value(len("hunter2-ish"))}},
		{`{"team":"shop"}`, []string{"hunter2-ish"}},
	} {
		tr, _ := fakeTables(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"apiVersion":"meta.k8s.io/v1","kind":"Table","columnDefinitions":[{"name":"Name","type":"string","format":"name"},{"name":"Echo","type":"string"}],`+
				`"rows":[{"cells":["s","hunter2-ish"],"object":{"apiVersion":"meta.k8s.io/v1","kind":"PartialObjectMetadata","metadata":{"name":"s","resourceVersion":"1","annotations":%s}}}]}`, c.annotations)
		})
		tb, err := tr.Rows(context.Background(), "samples.metrics.example.com", []string{"ns/s"}, false)
		if err != nil || !slices.Equal(tb.Rows["ns/s"], c.want) {
			t.Errorf("annotations %s: row %q (%v), want %q", c.annotations, tb.Rows["ns/s"], err, c.want)
		}
	}
}
