package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/demo"
)

// complete runs cobra's completion request as a shell does and returns the
// suggested words (without their descriptions).
func complete(t *testing.T, args ...string) []string {
	t.Helper()
	code, stdout, stderr := runCLI(t, append([]string{"__complete"}, args...)...)
	if code != 0 {
		t.Fatalf("__complete %v: exit %d, stderr %q", args, code, stderr)
	}
	var words []string
	for line := range strings.Lines(stdout) {
		line = strings.TrimSuffix(line, "\n")
		if strings.HasPrefix(line, ":") {
			break // the directive ends the list
		}
		word, _, _ := strings.Cut(line, "\t")
		words = append(words, word)
	}
	return words
}

// discoveryServer serves the discovery documents of a small cluster: pods
// (with a subresource), bindings (create only: no informer can follow
// them) and deployments.apps.
func discoveryServer(t *testing.T) *httptest.Server {
	docs := map[string]any{
		"/api": metav1.APIVersions{TypeMeta: metav1.TypeMeta{Kind: "APIVersions"}, Versions: []string{"v1"}},
		"/api/v1": metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "v1", APIResources: []metav1.APIResource{
			{Name: "pods", Namespaced: true, Kind: "Pod", Verbs: []string{"get", "list", "watch"}},
			{Name: "pods/log", Namespaced: true, Kind: "Pod", Verbs: []string{"get"}},
			{Name: "bindings", Namespaced: true, Kind: "Binding", Verbs: []string{"create"}},
		}},
		"/apis": metav1.APIGroupList{TypeMeta: metav1.TypeMeta{Kind: "APIGroupList"}, Groups: []metav1.APIGroup{{
			Name:             "apps",
			Versions:         []metav1.GroupVersionForDiscovery{{GroupVersion: "apps/v1", Version: "v1"}},
			PreferredVersion: metav1.GroupVersionForDiscovery{GroupVersion: "apps/v1", Version: "v1"},
		}}},
		"/apis/apps/v1": metav1.APIResourceList{TypeMeta: metav1.TypeMeta{Kind: "APIResourceList"}, GroupVersion: "apps/v1", APIResources: []metav1.APIResource{
			{Name: "deployments", Namespaced: true, Kind: "Deployment", Verbs: []string{"list", "watch", "create"}},
		}},
	}
	s := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		doc, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		_ = json.NewEncoder(w).Encode(doc)
	}))
	t.Cleanup(s.Close)
	return s
}

// writeKubeconfig writes a kubeconfig with one context per name, each on
// server, the first current; kubectl's discovery cache goes to a temporary
// directory.
func writeKubeconfig(t *testing.T, server string, contexts ...string) string {
	t.Helper()
	t.Setenv("KUBECACHEDIR", t.TempDir())
	var b strings.Builder
	fmt.Fprintf(&b, "apiVersion: v1\nkind: Config\ncurrent-context: %s\nclusters:\n- name: c\n  cluster:\n    server: %s\nusers:\n- name: u\n  user: {}\ncontexts:\n", contexts[0], server)
	for _, c := range contexts {
		fmt.Fprintf(&b, "- name: %s\n  context: {cluster: c, user: u}\n", c)
	}
	path := filepath.Join(t.TempDir(), "config")
	if err := os.WriteFile(path, []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// -r completes the resources the chosen cluster serves that an informer
// can list and watch, the last name of a comma-separated list included.
func TestCompleteResourcesFromDiscovery(t *testing.T) {
	kc := writeKubeconfig(t, discoveryServer(t).URL, "test")
	if got, want := complete(t, "--kubeconfig", kc, "-r", ""), []string{"deployments.apps", "pods"}; !slices.Equal(got, want) {
		t.Errorf("-r: %q, want %q", got, want)
	}
	if got, want := complete(t, "--kubeconfig", kc, "--resource", "pods,d"), []string{"pods,deployments.apps"}; !slices.Equal(got, want) {
		t.Errorf("--resource pods,d: %q, want %q", got, want)
	}
}

// A server that accepts the connection and never answers gives no
// suggestions once --request-timeout has passed: the shell is not hung.
func TestCompleteResourcesSilentServerDoesNotHang(t *testing.T) {
	silent := httptest.NewServer(http.HandlerFunc(func(_ http.ResponseWriter, r *http.Request) {
		<-r.Context().Done()
	}))
	t.Cleanup(silent.Close)
	kc := writeKubeconfig(t, silent.URL, "test")
	if got := complete(t, "--kubeconfig", kc, "--request-timeout", "100ms", "-r", ""); len(got) != 0 {
		t.Fatalf("suggestions from a server that never answered: %q", got)
	}
}

// --context completes the contexts of the kubeconfig the flags choose.
func TestCompleteContexts(t *testing.T) {
	kc := writeKubeconfig(t, "https://127.0.0.1:1", "staging", "prod", "dev")
	if got, want := complete(t, "--kubeconfig", kc, "--context", ""), []string{"dev", "prod", "staging"}; !slices.Equal(got, want) {
		t.Errorf("--context: %q, want %q", got, want)
	}
}

// --scenario completes every scenario; the enum flags their words.
func TestCompleteScenariosAndEnums(t *testing.T) {
	var names []string
	for _, s := range demo.Scenarios() {
		names = append(names, s.Name)
	}
	cases := []struct {
		flag string
		want []string
	}{
		{"--scenario", names},
		{"--watch-list", []string{"auto", "on", "off"}},
		{"--queue", []string{"RealFIFO", "DeltaFIFO"}},
	}
	for _, c := range cases {
		if got := complete(t, c.flag, ""); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.flag, got, c.want)
		}
	}
}

// informtop completion bash|zsh|fish prints a script for that shell.
func TestCompletionScripts(t *testing.T) {
	for shell, marker := range map[string]string{"bash": "bash completion V2 for informtop", "zsh": "#compdef informtop", "fish": "fish completion for informtop"} {
		code, stdout, stderr := runCLI(t, "completion", shell)
		if code != 0 || !strings.Contains(stdout, marker) {
			t.Errorf("completion %s: exit %d, stderr %q, script starts %q", shell, code, stderr, stdout[:min(len(stdout), 80)])
		}
	}
}
