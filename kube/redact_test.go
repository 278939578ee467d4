package kube

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/recording"
)

// appliedSecret is the annotation kubectl apply leaves on a Secret: the
// whole Secret, its data in base64 and its stringData in plain text.
const appliedSecret = `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"annotations":{},"name":"db","namespace":"shop"},"stringData":{"token":"plain-s3cr3t"},"type":"Opaque"}`

var appliedValues = []string{"aHVudGVyMg", "hunter2", "plain-s3cr3t"}

// A metadata-only informer of secrets caches no data, yet each object's
// last-applied annotation (and kapp's copy) holds the whole Secret: the
// Store view and a recording of it show neither.
func TestMetadataOnlySecretShowsNoValue(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Namespace: ns, Annotations: map[string]string{
		redact.LastApplied: appliedSecret, "kapp.k14s.io/original": appliedSecret, "team": "shop"}},
		StringData: map[string]string{"token": "plain-s3cr3t"}}
	if _, err := cs.CoreV1().Secrets(ns).Create(context.Background(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s, err := New(ctx, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"secrets"}, MetadataOnly: true})
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "secrets.rec.zst")
	// As informtop record describes a --metadata-only informer.
	w, err := recording.Start(file, s.Source, recording.Header{Informers: []recording.Informer{
		{Name: "secrets", Namespace: ns, Transforms: []string{"strip-managed-fields", "metadata-only"}}}})
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { defer close(done); s.Run(ctx) }()
	wctx, wcancel := context.WithTimeout(ctx, waitFor)
	defer wcancel()
	if err := s.WaitSynced(wctx); err != nil {
		t.Fatal(err)
	}
	obj, ok := s.Store("secrets").Object(ns + "/db")
	if !ok {
		t.Fatal("the Secret is not cached")
	}
	for _, v := range appliedValues {
		if strings.Contains(obj.YAML, v) {
			t.Fatalf("the Store view shows %q:\n%s", v, obj.YAML)
		}
	}
	if !strings.Contains(obj.YAML, "team: shop") || !strings.Contains(obj.YAML, redact.LastApplied+": <redacted, ") {
		t.Fatalf("the Store view should show the metadata, copies by size:\n%s", obj.YAML)
	}
	cancel()
	<-done
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	plain, err := zstdDecode(raw)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range appliedValues {
		if strings.Contains(plain, v) {
			t.Fatalf("the recording's bytes hold %q", v)
		}
	}
	rec, err := recording.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rec.Records {
		objs, err := r.Objects()
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range objs {
			md, _ := o["metadata"].(map[string]any)
			if md["name"] == "db" {
				found = true
			}
			ann, _ := md["annotations"].(map[string]any)
			for k, v := range ann {
				for _, secret := range appliedValues {
					if s, _ := v.(string); strings.Contains(s, secret) {
						t.Fatalf("the recording keeps %q in annotation %s", secret, k)
					}
				}
			}
		}
	}
	if !found {
		t.Fatal("the Secret's metadata was not recorded")
	}
}

func zstdDecode(b []byte) (string, error) {
	d, err := zstd.NewReader(nil, zstd.WithDecoderConcurrency(1))
	if err != nil {
		return "", err
	}
	defer d.Close()
	out, err := d.DecodeAll(b, nil)
	return string(out), err
}

// withPolicy makes the process's redaction policy the one --redact names
// would give, until the test ends.
func withPolicy(t *testing.T, resources ...string) {
	t.Helper()
	p, err := redact.NewPolicy(resources, nil)
	if err != nil {
		t.Fatal(err)
	}
	prev := redact.Current()
	redact.SetCurrent(p)
	t.Cleanup(func() { redact.SetCurrent(prev) })
}

// --redact takes a resource by any name -r takes (plural, short name,
// kind, singular, plural.group): the CRD's fields are hidden in the Store
// view's YAML and it gets no kubectl columns, whose PASSWORD would show
// one. A name the server does not serve is refused, not matched by
// nothing.
func TestRedactNamesResolveAsR(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	const password = "w1dg3t-s3cr3t"
	c.Widgets(t, ns, map[string]any{"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"password": password}})
	const informer, key = "widgets.example.com", "/w1"
	shown := func(s *Source) (yaml string, table source.Table, err error) {
		t.Helper()
		obj, ok := s.Store(informer).Object(ns + key)
		if !ok {
			t.Fatal("the widget is not cached")
		}
		table, err = s.Controls().Table.Rows(context.Background(), informer, []string{ns + key}, false)
		return obj.YAML, table, err
	}

	withPolicy(t)
	yaml, table, err := shown(start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"wdg"}}, true))
	if err != nil || !strings.Contains(yaml, password) || !slices.Contains(table.Rows[ns+key], password) {
		t.Fatalf("without --redact the widget's password should show (the test's premise): %v\n%s\n%v", err, yaml, table)
	}
	for _, name := range []string{"widgets", "wg", "Widget", "widget", "widgets.example.com"} {
		t.Run(name, func(t *testing.T) {
			withPolicy(t, name)
			s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"wdg"}, Redact: []string{name}}, true)
			yaml, table, err := shown(s)
			if strings.Contains(yaml, password) || !strings.Contains(yaml, "password: <redacted, 13 bytes>") {
				t.Errorf("--redact %s: the Store view shows\n%s", name, yaml)
			}
			if err == nil || !strings.Contains(err.Error(), "secret resource") || len(table.Rows) != 0 {
				t.Errorf("--redact %s: kubectl's columns %v (%v), want none and a sentence", name, table, err)
			}
		})
	}

	withPolicy(t, "nope")
	_, err = New(context.Background(), Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"wdg"}, Redact: []string{"nope"}})
	if err == nil || !strings.HasPrefix(err.Error(), `--redact nope: the server has no resource "nope"`) {
		t.Fatalf("--redact nope: %v, want a sentence refusing it", err)
	}
	withPolicy(t, "widgts")
	_, err = New(context.Background(), Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"wdg"}, Redact: []string{"widgts"}})
	if err == nil || !strings.Contains(err.Error(), "did you mean widgets") {
		t.Fatalf("--redact widgts: %v, want the names nearest to it", err)
	}
}
