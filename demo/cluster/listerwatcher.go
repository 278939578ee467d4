package cluster

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"
)

// ListerWatcher is a client of one resource of the cluster, narrowed by a
// Selector. It implements cache.ListerWatcher and
// cache.ListerWatcherWithContext, and reports whether the server streams
// lists (see IsWatchListSemanticsUnSupported). Safe for concurrent use.
type ListerWatcher struct {
	c      *Cluster
	kind   *kind
	sel    Selector
	filter filter
	client string
	// noBookmarks drops allowWatchBookmarks from this client's watches.
	noBookmarks bool
}

var (
	_ cache.ListerWatcher            = (*ListerWatcher)(nil)
	_ cache.ListerWatcherWithContext = (*ListerWatcher)(nil)
)

// ListerWatcher returns a client for resource narrowed by sel. The dynamic
// type is *ListerWatcher, which also satisfies cache.ListerWatcher.
// Errors: unknown resource, unparsable or unsupported selector.
func (c *Cluster) ListerWatcher(resource string, sel Selector) (cache.ListerWatcherWithContext, error) {
	k, err := lookupKind(resource)
	if err != nil {
		return nil, err
	}
	f, err := parseFilter(k, sel.Namespace, sel.LabelSelector, sel.FieldSelector)
	if err != nil {
		return nil, err
	}
	return &ListerWatcher{c: c, kind: k, sel: sel, filter: f}, nil
}

// SetClient names the client whose watches these are (an informer's name),
// for the server's view of its watchers. Call it before the first watch.
func (lw *ListerWatcher) SetClient(name string) { lw.client = name }

// SetBookmarks(false) makes this client's watches go without bookmarks
// even when they ask for them, as a client that never asks: a teaching
// knob, since client-go's reflector always asks. Call it before the first
// watch. Such a client cannot stream its lists either (the stream ends
// with a bookmark), so it always LISTs: call it before the reflector is
// built.
func (lw *ListerWatcher) SetBookmarks(on bool) { lw.noBookmarks = !on }

// Resource is the canonical name of the listed resource.
func (lw *ListerWatcher) Resource() string { return lw.kind.resource }

// Selector is the selector the ListerWatcher was built with.
func (lw *ListerWatcher) Selector() Selector { return lw.sel }

// List serves one LIST request.
//
// Deprecated: kept for cache.ListerWatcher; use ListWithContext.
func (lw *ListerWatcher) List(options metav1.ListOptions) (runtime.Object, error) {
	return lw.c.list(context.Background(), lw, options)
}

// ListWithContext serves one LIST request (one page when options.Limit is set).
func (lw *ListerWatcher) ListWithContext(ctx context.Context, options metav1.ListOptions) (runtime.Object, error) {
	return lw.c.list(ctx, lw, options)
}

// Watch opens a WATCH stream that lives until stopped, closed by the server
// or timed out.
//
// Deprecated: kept for cache.ListerWatcher; use WatchWithContext.
func (lw *ListerWatcher) Watch(options metav1.ListOptions) (watch.Interface, error) {
	return lw.WatchWithContext(context.Background(), options)
}

// WatchWithContext opens a WATCH stream that also ends with ctx.
func (lw *ListerWatcher) WatchWithContext(ctx context.Context, options metav1.ListOptions) (watch.Interface, error) {
	if lw.noBookmarks {
		options.AllowWatchBookmarks = false
	}
	return lw.c.watch(ctx, lw, options)
}

// IsWatchListSemanticsUnSupported is the optional method client-go v0.37's
// NewReflector looks for (see k8s.io/client-go/util/watchlist): true makes a
// reflector skip streaming lists and LIST directly. It mirrors
// Options.WatchList. Wrappers around a ListerWatcher must forward it, or a
// reflector with WatchListClient on first sends a streaming watch, which a
// server without WatchList rejects with 422 before the reflector falls back
// to LIST.
func (lw *ListerWatcher) IsWatchListSemanticsUnSupported() bool {
	return !lw.c.opts.WatchList || lw.noBookmarks
}
