package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/internal/kubetest"
)

// A Secret applied with kubectl, read by a metadata-only informer, leaves
// informtop by no path: --once --json, a recording, the log file at -v 9
// (response bodies included), nor a replay of the recording. Files that
// hold cluster data are the user's alone.
func TestMetadataOnlySecretLeavesByNoPath(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "redact-e2e"
	cs := clusterNamespace(t, c, ns)
	applied := `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"annotations":{},"name":"db","namespace":"redact-e2e"},"stringData":{"token":"plain-s3cr3t"},"type":"Opaque"}`
	values := []string{"aHVudGVyMg", "hunter2", "plain-s3cr3t"}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "db", Annotations: map[string]string{
		redact.LastApplied: applied, "kapp.k14s.io/original": applied}},
		Data: map[string][]byte{"password": []byte("hunter2")}, StringData: map[string]string{"token": "plain-s3cr3t"}}
	if _, err := cs.CoreV1().Secrets(ns).Create(context.Background(), sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	leaks := func(where, text string) {
		t.Helper()
		for _, v := range values {
			if strings.Contains(text, v) {
				t.Fatalf("%s holds the secret value %q", where, v)
			}
		}
	}
	mode := func(path string) {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != 0o600 {
			t.Errorf("%s is %v, want -rw------- (it holds cluster data)", filepath.Base(path), fi.Mode().Perm())
		}
	}

	for _, args := range [][]string{
		{"-r", "secrets", "--metadata-only"},
		{"-r", "secrets"},
		{"-r", "secrets", "--metadata-only", "--watch-list", "off", "--page-size", "1"},
	} {
		log := filepath.Join(dir, "once.log")
		_ = os.Remove(log)
		all := append([]string{"--once", "--json", "--verify", "--kubeconfig", c.Kubeconfig, "-n", ns, "--log-file", log, "-v", "9"}, args...)
		code, stdout, stderr, _ := informtop(t, bin, all...)
		if code != 0 {
			t.Fatalf("%v: exit %d, stderr %q", args, code, stderr)
		}
		leaks("--once --json's report", stdout+stderr)
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Response Body") {
			t.Fatalf("%v: -v 9 should log response bodies (redacted); the log:\n%s", args, b)
		}
		leaks("the -v 9 log of "+strings.Join(args, " "), string(b))
		mode(log)
	}

	file := filepath.Join(dir, "secrets.rec.zst")
	log := filepath.Join(dir, "record.log")
	code, _, stderr, _ := informtop(t, bin, "record", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "secrets", "--metadata-only",
		"-o", file, "--duration", "2s", "--log-file", log, "-v", "9")
	if code != 0 {
		t.Fatalf("record: exit %d, stderr %q", code, stderr)
	}
	plain := decompress(t, file)
	if !strings.Contains(plain, `"name":"db"`) {
		t.Fatal("the Secret's metadata was not recorded")
	}
	leaks("the recording", plain)
	mode(file)
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	leaks("record's log", string(b))
	code, stdout, stderr, _ := informtop(t, bin, "replay", file, "--once", "--json")
	if code != 0 {
		t.Fatalf("replay: exit %d, stderr %q", code, stderr)
	}
	leaks("the replay's report", stdout)
}

// A ConfigMap whose last-applied annotation holds a Secret (one applied
// under the same name before) is hidden by the Store view; what the view
// hides leaves by no other path either: a recording, read from the wire's
// protobuf (streamed initial list) or from decoded objects (paged LIST),
// --once --json, the -v 9 log, nor a replay of the recording.
func TestConfigMapCopyingASecretLeavesByNoPath(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "redact-copy-e2e"
	cs := clusterNamespace(t, c, ns)
	applied := `{"apiVersion":"v1","data":{"password":"aHVudGVyMg=="},"kind":"Secret","metadata":{"annotations":{},"name":"db","namespace":"redact-copy-e2e"},"stringData":{"token":"plain-s3cr3t"},"type":"Opaque"}`
	values := []string{"aHVudGVyMg", "hunter2", "plain-s3cr3t", "cm-s3cr3t"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "db", Annotations: map[string]string{redact.LastApplied: applied}},
		Data: map[string]string{"password": "cm-s3cr3t"}}
	if _, err := cs.CoreV1().ConfigMaps(ns).Create(context.Background(), cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	leaks := func(where, text string) {
		t.Helper()
		for _, v := range values {
			if strings.Contains(text, v) {
				t.Errorf("%s holds the secret value %q", where, v)
			}
		}
	}
	readLog := func(path string) string {
		t.Helper()
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Response Body") {
			t.Fatalf("-v 9 should log response bodies (redacted); the log:\n%s", b)
		}
		return string(b)
	}
	for i, args := range [][]string{
		{"--watch-list", "on"},
		{"--watch-list", "off", "--page-size", "1"},
		{"--metadata-only"},
	} {
		what := strings.Join(args, " ")
		log := filepath.Join(dir, fmt.Sprintf("once-%d.log", i))
		all := append([]string{"--once", "--json", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "configmaps", "--log-file", log, "-v", "9"}, args...)
		code, stdout, stderr, _ := informtop(t, bin, all...)
		if code != 0 {
			t.Fatalf("%s: exit %d, stderr %q", what, code, stderr)
		}
		leaks("--once --json's report with "+what, stdout+stderr)
		leaks("the -v 9 log of --once with "+what, readLog(log))

		file := filepath.Join(dir, fmt.Sprintf("configmaps-%d.rec.zst", i))
		log = filepath.Join(dir, fmt.Sprintf("record-%d.log", i))
		code, _, stderr, _ = informtop(t, bin, append([]string{"record", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "configmaps",
			"-o", file, "--duration", "2s", "--log-file", log, "-v", "9"}, args...)...)
		if code != 0 {
			t.Fatalf("record %s: exit %d, stderr %q", what, code, stderr)
		}
		plain := decompress(t, file)
		leaks("the recording with "+what, plain)
		if !strings.Contains(plain, `"name":"db"`) || !strings.Contains(plain, `kubectl.kubernetes.io/last-applied-configuration":"\u003credacted, `) {
			t.Fatalf("record %s: the ConfigMap was not recorded redacted as JSON", what)
		}
		leaks("record's -v 9 log with "+what, readLog(log))
		code, stdout, stderr, _ = informtop(t, bin, "replay", file, "--once", "--json")
		if code != 0 {
			t.Fatalf("replay %s: exit %d, stderr %q", what, code, stderr)
		}
		leaks("the replay's report of "+what, stdout)
	}
}

// --redact takes a CRD by any name -r takes; the widget's password is then
// not in the -v 9 log. A name the server does not serve is bad input:
// exit 2 and a sentence naming the nearest names.
func TestRedactNamesACRDAsRDoes(t *testing.T) {
	c := kubetest.Shared(t)
	const ns = "redact-names-e2e"
	clusterNamespace(t, c, ns)
	const password = "w1dg3t-s3cr3t"
	c.Widgets(t, ns, map[string]any{"metadata": map[string]any{"name": "w1"}, "spec": map[string]any{"password": password}})
	dir := t.TempDir()
	bin := buildInformtop(t, dir)
	for _, name := range []string{"widgets", "wg", "Widget"} {
		log := filepath.Join(dir, name+".log")
		// A paged LIST, whose response body -v 9 logs (a streamed list's
		// events are not logged).
		code, stdout, stderr, _ := informtop(t, bin, "--once", "--json", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "wdg",
			"--watch-list", "off", "--redact", name, "--log-file", log, "-v", "9")
		if code != 0 {
			t.Fatalf("--redact %s: exit %d, stderr %q", name, code, stderr)
		}
		b, err := os.ReadFile(log)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), "Response Body") || !strings.Contains(string(b), "WidgetList") || !strings.Contains(string(b), "redacted, 13 bytes") {
			t.Fatalf("--redact %s: -v 9 should log the widgets' list (redacted); the log:\n%s", name, b)
		}
		if strings.Contains(string(b)+stdout+stderr, password) {
			t.Errorf("--redact %s: the widget's password is in the log or the report", name)
		}
	}
	code, _, stderr, _ := informtop(t, bin, "--once", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "wdg", "--redact", "nope")
	if code != 2 || !strings.Contains(stderr, `--redact nope: the server has no resource "nope"`) {
		t.Fatalf("--redact nope: exit %d, stderr %q; want 2 and a sentence", code, stderr)
	}
	code, _, stderr, _ = informtop(t, bin, "--once", "--kubeconfig", c.Kubeconfig, "-n", ns, "-r", "wdg", "--redact", "widgts")
	if code != 2 || !strings.Contains(stderr, "did you mean widgets") {
		t.Fatalf("--redact widgts: exit %d, stderr %q; want 2 and the nearest names", code, stderr)
	}
}
