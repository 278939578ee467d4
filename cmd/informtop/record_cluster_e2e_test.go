package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/klauspost/compress/zstd"
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
	file := filepath.Join(dir, "cluster.rec.zst")
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
	plain := decompress(t, file)
	if strings.Contains(plain, "do-not-record-me") || strings.Contains(plain, "ZG8tbm90LXJlY29yZC1tZQ") {
		t.Fatal("secret data recorded")
	}
	objects := 0
	for _, r := range rec.Records {
		objs, err := r.Objects()
		if err != nil {
			t.Fatalf("record at %s: %v", r.At(), err)
		}
		for _, o := range objs {
			objects++
			if md, _ := o["metadata"].(map[string]any); md["managedFields"] != nil {
				t.Fatalf("managedFields recorded: %v", o)
			}
		}
	}
	if objects < 4 {
		t.Fatalf("%d objects recorded", objects)
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

// decompress is the file's decompressed bytes.
func decompress(t *testing.T, path string) string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	zr, err := zstd.NewReader(f, zstd.WithDecoderConcurrency(1))
	if err != nil {
		t.Fatal(err)
	}
	defer zr.Close()
	b, err := io.ReadAll(zr)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
