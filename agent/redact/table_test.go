package redact

import (
	"strings"
	"testing"
)

// A Secret's printed type and key count stay; a named secret resource's
// printer columns show sizes; other resources keep every cell.
func TestTableCellRedactsBySecretResource(t *testing.T) {
	p, err := NewPolicy([]string{"sealedsecrets.bitnami.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ resource, column, cell, want string }{
		{"secrets", "Type", "Opaque", "Opaque"},
		{"secrets", "Data", "2", "2"},
		{"secrets", "Hint", "hunter2", "<redacted, 7 bytes>"},
		{"sealedsecrets.bitnami.com", "Name", "db", "db"},
		{"sealedsecrets.bitnami.com", "Data", "hunter2", "<redacted, 7 bytes>"},
		{"sealedsecrets.bitnami.com", "Status", "", ""},
		{"pods", "Status", "Running", "Running"},
		{"configmaps", "Data", "3", "3"},
	} {
		if got := p.TableCell(c.resource, c.column, c.cell); got != c.want {
			t.Errorf("TableCell(%s, %s, %q) = %q, want %q", c.resource, c.column, c.cell, got, c.want)
		}
	}
}

// Only Secrets among secret resources have a table safe to ask for.
func TestTablePrintsSecrets(t *testing.T) {
	p, err := NewPolicy([]string{"sealedsecrets.bitnami.com"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	for resource, want := range map[string]bool{"secrets": false, "sealedsecrets.bitnami.com": true, "pods": false} {
		if got := p.TablePrintsSecrets(resource); got != want {
			t.Errorf("TablePrintsSecrets(%s) = %v, want %v", resource, got, want)
		}
	}
}

// A logged Table (kubectl get's, with each row's metadata) keeps its
// cells, and loses the copies of a Secret its rows' annotations carry.
func TestBodyOfALoggedTableIsRedacted(t *testing.T) {
	table := `{"kind":"Table","apiVersion":"meta.k8s.io/v1","columnDefinitions":[{"name":"Name"},{"name":"Type"},{"name":"Data"}],` +
		`"rows":[{"cells":["db","Opaque",2],"object":{"kind":"PartialObjectMetadata","apiVersion":"meta.k8s.io/v1","metadata":{"name":"db",` +
		`"annotations":{"kubectl.kubernetes.io/last-applied-configuration":` + quote(appliedSecret) + `}}}}]}`
	got := Current().Body(table)
	assertNoSecret(t, "a logged Table", got)
	if !strings.Contains(got, `"cells":["db","Opaque",2]`) {
		t.Fatalf("the cells should stay: %s", got)
	}
}
