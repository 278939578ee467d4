package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/internal/kubetest"
	"github.com/informtop/informtop/redact"
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
