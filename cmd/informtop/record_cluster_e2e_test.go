package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/recording"
)

// `informtop record` on a real cluster, headless, then `informtop replay
// --once --json`: the replay caches what the server held, the header
// keeps the informers' configuration, and the Secret recorded has no data.
func TestRecordARealClusterThenReplay(t *testing.T) {
	c := kubetest.Shared(t)
	seed(t, c, "record-e2e")
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	bg := context.Background()
	sec := map[string][]byte{"password": []byte("do-not-record-me")}
	if _, err := cs.CoreV1().Secrets("record-e2e").Create(bg, secretOf("s", sec), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	file := filepath.Join(dir, "cluster.rec.gz")
	code, stdout, stderr, _ := informtop(t, bin, "record", "--kubeconfig", c.Kubeconfig, "-n", "record-e2e", "-r", "configmaps,secrets",
		"--listener", "slow=1ms", "-o", file, "--duration", "3s")
	if code != 0 || stdout != "" || !strings.Contains(stderr, "recording ") || !strings.Contains(stderr, "recorded ") {
		t.Fatalf("record: exit %d, stdout %q, stderr %q", code, stdout, stderr)
	}
	rec, err := recording.Read(file)
	if err != nil {
		t.Fatal(err)
	}
	if len(rec.Header.Informers) != 2 {
		t.Fatalf("header %+v", rec.Header)
	}
	for _, inf := range rec.Header.Informers {
		if inf.Namespace != "record-e2e" || len(inf.Listeners) != 2 || inf.Listeners[1].Name != "slow" || !strings.Contains(strings.Join(inf.Transforms, ","), "strip-managed-fields") {
			t.Errorf("header's informer %+v", inf)
		}
	}
	for _, r := range rec.Records {
		for _, raw := range append(r.Items, r.Object) {
			if strings.Contains(string(raw), "do-not-record-me") || strings.Contains(string(raw), "ZG8tbm90LXJlY29yZC1tZQ") || strings.Contains(string(raw), "managedFields") {
				t.Fatalf("secret data or managedFields recorded: %s", raw)
			}
		}
	}
	code, stdout, stderr, _ = informtop(t, bin, "replay", file, "--once", "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q\n%s", code, stderr, stdout)
	}
	var doc clusterJSON
	if err := json.Unmarshal([]byte(stdout), &doc); err != nil {
		t.Fatalf("not JSON: %v\n%s", err, stdout)
	}
	if doc.Source != "replay" || !doc.Synced || len(doc.Informers) != 2 || doc.Informers[0].Store.Objects < 3 || doc.Informers[1].Store.Objects < 1 {
		t.Errorf("replay report %+v", doc)
	}
}

func secretOf(name string, data map[string][]byte) *corev1.Secret {
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: data}
}
