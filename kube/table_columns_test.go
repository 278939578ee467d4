package kube

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/internal/kubetest"
)

// An empty cache still gets kubectl's columns: asked with no key, the
// reader lists at most one object where the informer lists, as a Table.
func TestTableColumnsOfAnEmptyCache(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	s := start(t, Options{Flags: flags(t, c.Kubeconfig, ns), Resources: []string{"services", "deployments"}}, true)
	tr := s.Controls().Table
	for informer, want := range map[string][]string{
		"services":         {"TYPE", "CLUSTER-IP", "EXTERNAL-IP", "PORT(S)"},
		"deployments.apps": {"READY", "UP-TO-DATE", "AVAILABLE"},
	} {
		tb, err := tr.Rows(context.Background(), informer, nil, false)
		if err != nil {
			t.Fatal(err)
		}
		if got := columnNames(tb); !slices.Equal(got, want) || len(tb.Rows) != 0 {
			t.Errorf("%s with an empty cache: columns %q, rows %d; want %q", informer, got, len(tb.Rows), want)
		}
	}
}

// Many rows at once (a filter over every cell) are read with one LIST
// printed as a Table, not a GET each, and equal the rows GETs bring.
func TestTableManyRowsAreListed(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ns := namespace(t, cs)
	bg := context.Background()
	var keys []string
	for i := range 60 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: fmt.Sprintf("cm-%02d", i)}, Data: map[string]string{"a": "1", "b": strings.Repeat("x", i)}}
		if _, err := cs.CoreV1().ConfigMaps(ns).Create(bg, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		keys = append(keys, ns+"/"+cm.Name)
	}
	proxy := c.DropProxy(t)
	s := start(t, Options{Flags: flags(t, proxy.Kubeconfig, ns), Resources: []string{"configmaps"}, WatchList: WatchListOff}, true)
	waitfor.Within(t, waitFor, "60 configmaps cached", func() (bool, string) {
		_, ok := s.cachedVersion("configmaps", keys[59])
		return ok, ""
	})
	tr := s.Controls().Table
	listPath := "/api/v1/namespaces/" + ns + "/configmaps"
	// The informer's watch is a GET of the same path: open before counting.
	waitfor.Within(t, waitFor, "the informer's watch open", func() (bool, string) { return proxy.Watches() > 0, "" })
	before := proxy.Requests("GET", listPath)
	tb, err := tr.Rows(bg, "configmaps", keys, false)
	if err != nil {
		t.Fatal(err)
	}
	if len(tb.Rows) != 60 || !slices.Equal(tb.Rows[keys[7]], []string{"2"}) {
		t.Fatalf("%d rows, %s: %q; want 60, DATA 2", len(tb.Rows), keys[7], tb.Rows[keys[7]])
	}
	gets := 0
	for _, k := range keys {
		gets += proxy.Requests("GET", "/api/v1/namespaces/"+k[:strings.Index(k, "/")]+"/configmaps/"+k[strings.Index(k, "/")+1:])
	}
	if lists := proxy.Requests("GET", listPath) - before; gets != 0 || lists != 1 {
		t.Errorf("%d GETs and %d LISTs for 60 rows; want none and one", gets, lists)
	}
}
