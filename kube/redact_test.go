package kube

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/redact"
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
