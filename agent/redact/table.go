package redact

import "strings"

// TablePrintsSecrets reports whether the table the API server prints for
// resource may show secret values: it is a secret resource other than
// Secrets themselves (whose table shows a type and a count of keys), so
// its printer columns (a CRD's) may read any field. Such a table is not
// asked for, so its cells reach no screen and no log.
func (p Policy) TablePrintsSecrets(resource string) bool {
	return p.SecretResource(resource) && !strings.EqualFold(resource, "secrets")
}

// TableCell is Current().TableCell.
func TableCell(resource, column, cell string) string {
	return Current().TableCell(resource, column, cell)
}

// TableCell is what one cell of the table the API server prints for
// resource (kubectl get's columns; column is the server's name, in any
// case) may show when nothing but the resource is known of the object:
// as Verdict.TableCell. A secret resource the user named (a CRD) may have
// printer columns reading any field of its objects.
func (p Policy) TableCell(resource, column, cell string) string {
	return p.Decide(resource, "", nil).TableCell(column, cell)
}
