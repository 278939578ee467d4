package source

import "context"

// Where is the namespace a resource is watched in. The zero value keeps
// the source's current namespace.
type Where struct {
	// Namespace is the one to watch, when set.
	Namespace string
	// All watches every namespace.
	All bool
}

// Retargeting changes what a running source watches, as k9s' ":svc" and
// ":ns shop" do: informers are added or replaced while the others keep
// running. Only a source whose informers run in this process against a
// cluster can; its methods may talk to the API server, so the dashboard
// calls them off its drawing goroutine.
type Retargeting interface {
	// Watch makes sure resource (as kubectl names it: "svc", "deploy",
	// "widgets.example.com") is watched where says; an informer already
	// watching the resource elsewhere is replaced by one that lists from
	// scratch. It returns the informer's name. An unknown resource is an
	// error that names the closest ones the server has.
	Watch(ctx context.Context, resource string, where Where) (informer string, err error)
	// UseNamespace moves every namespaced informer to where, as the
	// source's namespace from now on.
	UseNamespace(ctx context.Context, where Where) error
}
