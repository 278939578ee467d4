package layering

import (
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/informtop/informtop"

// deps lists every package pkg depends on, itself included.
func deps(t *testing.T, pkg string) []string {
	t.Helper()
	out, err := exec.Command("go", "list", "-deps", module+"/"+pkg).Output()
	if err != nil {
		t.Fatalf("go list -deps %s: %v", pkg, err)
	}
	return strings.Fields(string(out))
}

func TestImportsRunOneWay(t *testing.T) {
	noUI := []string{"engine", "source", "source/local", "source/sourcetest", "report", "redact", "demo", "demo/cluster", "kube", "agent", "agent/api", "attach", "verify", "recording", "replay"}
	for _, pkg := range noUI {
		for _, d := range deps(t, pkg) {
			if strings.HasPrefix(d, "charm.land/") || d == module+"/tui" {
				t.Errorf("%s depends on %s: data packages must not import the UI", pkg, d)
			}
		}
	}
	for _, d := range deps(t, "tui") {
		for _, src := range []string{"demo", "kube", "attach", "agent", "source/local", "cmd/informtop", "recording", "replay"} {
			if d == module+"/"+src {
				t.Errorf("tui depends on %s: the UI sees sources only through package source", src)
			}
		}
	}
	for _, pkg := range []string{"source", "report", "redact", "agent/api", "verify"} {
		for _, d := range deps(t, pkg) {
			if d == module+"/demo" || d == module+"/kube" || d == module+"/attach" || d == module+"/agent" {
				t.Errorf("%s depends on %s: the contract must not know its implementations", pkg, d)
			}
		}
	}
	for _, d := range deps(t, "cmd/informtop") {
		if strings.HasPrefix(d, "k8s.io/kubernetes") || strings.HasPrefix(d, "go.etcd.io/etcd/server") {
			t.Errorf("the informtop binary depends on %s: test-only dependencies belong in test/kube", d)
		}
	}
}

// The attach client must not drag the agent's Prometheus server side into
// the informtop binary.
func TestAttachIsLean(t *testing.T) {
	for _, d := range deps(t, "attach") {
		if strings.HasPrefix(d, "github.com/prometheus/") || d == module+"/agent" {
			t.Errorf("attach depends on %s", d)
		}
	}
}
