package source

import "context"

// TableReader shows cached objects as `kubectl get` prints them: the
// columns the API server prints for their resource (a pod's READY,
// STATUS and RESTARTS, a deployment's UP-TO-DATE, a CRD's
// additionalPrinterColumns). The Store view calls it from a command,
// never while drawing, with the keys of the page it shows, and waits for
// one answer before it asks again for the same informer. An
// implementation keeps the rows it read and asks the server again only
// for an object whose cached resourceVersion moved. Rows is safe for
// concurrent use.
type TableReader interface {
	// Rows returns the columns of the named informer's resource and the
	// row of each of keys it can tell; without wide, the columns kubectl
	// prints only with -o wide are left out. A key whose row is not known
	// (not read yet, not cached, its read failed) is absent, and asked for
	// again next time. The error is a sentence saying why the informer
	// gets no columns at all (an unknown informer, RBAC allowing list but
	// not get, a server that prints no table for the resource); the view
	// then shows its own columns with that sentence.
	Rows(ctx context.Context, informer string, keys []string, wide bool) (Table, error)
}

// Table is some of an informer's objects as kubectl prints them. Every
// row has exactly len(Columns) cells, in column order; the server's NAME
// and AGE are not among them (the Store view shows the key, and an age
// computed from the creation time it has, which does not go stale). The
// caller owns a Table: the reader keeps no reference to it.
type Table struct {
	Columns []TableColumn
	// Rows holds the cells of each key known, one string per column as
	// kubectl prints them ("" for a value the server left empty).
	Rows map[string][]string
}

// TableColumn is one column's definition, as the server gave it.
type TableColumn struct {
	// Name is the header as kubectl prints it: the server's name in
	// capitals, e.g. "READY", "UP-TO-DATE".
	Name string
	// Description is the server's description of the column.
	Description string
	// Wide marks a column kubectl prints only with -o wide (the server
	// gave it a priority above 0).
	Wide bool
}
