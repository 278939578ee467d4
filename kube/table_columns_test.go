package kube

import (
	"context"
	"slices"
	"testing"

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
