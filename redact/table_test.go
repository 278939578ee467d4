package redact

import "testing"

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
