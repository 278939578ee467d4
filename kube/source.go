package kube

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
	"github.com/informtop/informtop/internal/wirekeep"
	"github.com/informtop/informtop/source/local"
)

// defaultAccessTimeout bounds discovery and the access checks when
// --request-timeout does not.
const defaultAccessTimeout = 30 * time.Second

// Source is a real cluster's informers on a local.Source. It offers pause,
// step, resync and stalling of the simulated listeners; it has no server
// faults and no workload rate, since informtop never changes a cluster.
type Source struct {
	*local.Source
	server   string
	pageSize int64 // --page-size, also for verify's LIST
	// metrics reads the API server's own figures; nil with
	// Options.NoServerMetrics.
	metrics *serverMetrics
	// live is what changing the watched resources needs; fixed after New.
	live liveClients

	// factsMu guards facts and scope, which :ns and :svc change while the
	// dashboard reads them.
	factsMu sync.RWMutex
	// facts are, per informer, what it watches, what the user may not do
	// and how its objects are decoded.
	facts map[string]informerFacts
	scope Scope
	// nsNote says the namespace watched could not be checked, "" when it
	// was (or all namespaces are watched).
	nsNote string
	// nextAt is, per informer waiting out its reflector's backoff, when
	// it tries again at the latest, as the last frame saw it.
	nextAt map[string]time.Time
	// working are the informers whose watch is open or list runs, as the
	// last frame saw them, less the lists of those the access check
	// refused.
	working map[string]bool
	// attempts follows the informers' failures (its own lock).
	attempts *attempts
	tables   *tables // kubectl's columns for the Store view
}

// Scope is what the source watches: where and which.
type Scope struct {
	// Context is the kubeconfig context (--context, else the current one).
	Context, Server string
	// Namespace is the one watched; "" with AllNamespaces.
	Namespace     string
	AllNamespaces bool
	LabelSelector string
}

// Scope says what the source watches.
func (s *Source) Scope() Scope {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	return s.scope
}

// serverMetricsOff is the reason the figures are missing with
// --server-metrics=false.
const serverMetricsOff = "the API server's watch-cache figures are not read: --server-metrics=false turned that off"

type informerFacts struct {
	res       resource
	namespace string // watched; "" for all namespaces or a cluster-scoped resource
	denied    string // the access check's sentence, "" if allowed
	unwatched string // discovery says list or watch is not served
	decoding  Decoding
	verify    verify.Lister
}

var (
	_ source.Source       = (*Source)(nil)
	_ source.Processing   = (*Source)(nil)
	_ source.Stalling     = (*Source)(nil)
	_ source.Verifier     = (*Source)(nil)
	_ source.ServerReader = (*Source)(nil)
)

// New connects: it loads the kubeconfig, resolves every resource through
// discovery, checks access, and builds one informer per resource. Nothing
// is listed or watched until Run. Every error is a sentence for the user.
func New(ctx context.Context, o Options) (*Source, error) {
	if o.Flags == nil {
		return nil, errors.New("no kubeconfig flags given")
	}
	if len(o.Resources) == 0 {
		o.Resources = []string{"pods"}
	}
	if o.WatchList == "" {
		o.WatchList = WatchListAuto
	}
	timeout := o.AccessTimeout
	if timeout <= 0 {
		timeout = defaultAccessTimeout
	}
	// Discovery and the access checks must not hang on a server that
	// accepts connections and never answers; list and watch clients drop
	// this timeout again (newClients).
	boundRequests(o.Flags, timeout)
	loader := o.Flags.ToRawKubeConfigLoader()
	raw, err := loader.RawConfig()
	if err != nil {
		return nil, kubeconfigError(err)
	}
	if want := o.Flags.Context; want != nil && *want != "" {
		if _, ok := raw.Contexts[*want]; !ok {
			return nil, unknownContext(*want, raw.Contexts)
		}
	}
	cfg, err := o.Flags.ToRESTConfig()
	if err != nil {
		return nil, kubeconfigError(err)
	}
	title := raw.CurrentContext
	if o.Flags.Context != nil && *o.Flags.Context != "" {
		title = *o.Flags.Context
	}
	if title == "" {
		title = cfg.Host
	}
	ns := ""
	if !o.AllNamespaces {
		if ns, _, err = loader.Namespace(); err != nil {
			return nil, kubeconfigError(err)
		}
	}
	actx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	mapper, err := o.Flags.ToRESTMapper()
	if err != nil {
		return nil, connectError(cfg.Host, err)
	}
	disco, err := o.Flags.ToDiscoveryClient()
	if err != nil {
		return nil, connectError(cfg.Host, err)
	}
	if _, err := disco.ServerVersion(); err != nil {
		return nil, connectError(cfg.Host, err)
	}
	res, err := resources(mapper, disco, o.Resources)
	if err != nil {
		return nil, err
	}
	if err := resolveRedacted(mapper, disco, o.Redact); err != nil {
		return nil, err
	}
	teachRedactedKinds(res)
	cs, err := newClients(cfg)
	if err != nil {
		return nil, err
	}
	review, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, err
	}

	s := &Source{server: cfg.Host, facts: map[string]informerFacts{}, pageSize: o.PageSize, attempts: newAttempts(),
		live: liveClients{mu: &sync.Mutex{}, mapper: mapper, disco: disco, clients: cs, review: review, opts: o, timeout: timeout}}
	s.scope = Scope{Context: raw.CurrentContext, Server: cfg.Host, Namespace: ns, AllNamespaces: o.AllNamespaces, LabelSelector: o.LabelSelector}
	if o.Flags.Context != nil && *o.Flags.Context != "" {
		s.scope.Context = *o.Flags.Context
	}
	as := ""
	if o.Flags.Impersonate != nil {
		as = *o.Flags.Impersonate
	}
	s.live.as = as
	// Access checks run side by side: one round trip each.
	checks := make([]string, len(res))
	metricsWhy := ""
	var nsErr error
	var wg sync.WaitGroup
	for i, r := range res {
		wg.Go(func() { checks[i] = denied(actx, review, r, ns, as) })
	}
	if !o.NoServerMetrics {
		wg.Go(func() { metricsWhy = metricsDenied(actx, review, as) })
	}
	if ns != "" && namespaced(res) {
		wg.Go(func() { s.nsNote, nsErr = checkNamespace(actx, review, ns, as, cfg.Host) })
	}
	wg.Wait()
	if nsErr != nil {
		if o.Flags.Namespace == nil || *o.Flags.Namespace == "" {
			return nil, fmt.Errorf("%w; it is the namespace of context %s in the kubeconfig: pass -n with one that exists, or -A", nsErr, s.scope.Context)
		}
		return nil, fmt.Errorf("-n %s: %w; pass one that exists, or -A", ns, nsErr)
	}
	// Lifecycle events only (no per-item events), so a smaller ring than the
	// demo's holds minutes of them and costs ~0.5 MB instead of 2 MB.
	cfgLocal := local.Config{Kind: "kube", Title: title, Status: s.status, Reason: s.reason, Notes: s.namespaceNote, EventRingSize: local.DefaultEngineRingSize}
	if o.NoServerMetrics {
		cfgLocal.Server = s.serverOff
	} else {
		s.metrics = newServerMetrics(review, cfg.Host, as, metricsWhy, o.ServerMetricsEvery)
		cfgLocal.Server = s.metrics.stats
	}
	s.Source = local.New(cfgLocal)
	s.tables = newTables(cfg, res, s.cachedVersion)
	s.tables.cachedObject = s.cachedObject
	s.tables.namespaceOf = func(informer string) string { f, _ := s.fact(informer); return f.namespace }
	for i, r := range res {
		if err := s.add(r, ns, checks[i], ""); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// add builds the informer for r in ns (ignored for a cluster-scoped r) in
// place of the informer named old, or last with old "".
func (s *Source) add(r resource, ns, deniedWhy, old string) error {
	cs, o := s.live.clients, s.live.opts
	keeper := &wirekeep.Keeper{}
	list, watchFn, example, dec, err := cs.listWatch(r, ns, o.MetadataOnly, keeper)
	if err != nil {
		return fmt.Errorf("cannot build a client for %s: %w", r.name(), err)
	}
	lw := &shaped{list: list, watch: watchFn, label: o.LabelSelector, field: o.FieldSelector, pageSize: o.PageSize, watchList: o.WatchList, keeper: keeper}
	name := r.name()
	watched := ""
	if r.namespaced() {
		watched = ns
	}
	gvr := r.mapping.Resource
	f := informerFacts{res: r, namespace: watched, denied: deniedWhy, decoding: dec, verify: cs.verifyLister(r, ns, o.LabelSelector, o.FieldSelector)}
	if !r.watchable() {
		f.unwatched = fmt.Sprintf("%s cannot be listed and watched: the server offers only %v for it", name, r.verbs)
	}
	// The facts come first: the informer may run as soon as Replace puts
	// it in, and a frame then asks for them.
	s.factsMu.Lock()
	s.facts[name] = f
	delete(s.nextAt, name)
	s.factsMu.Unlock()
	s.attempts.start(name, time.Now())
	_, err = s.Replace(local.Change{Old: old,
		Spec: local.InformerSpec{Name: name, Resource: name, Namespace: watched, Group: gvr.Group, Version: gvr.Version,
			Queue: o.Queue, ListerWatcher: lw, Example: example,
			// Lifecycle events only: per-item events cost at real rates.
			TapWatchStreams: true},
		Listeners: append([]local.ListenerSpec{{Name: ownListener}}, o.Listeners...),
		Prepare: func(e *local.Informer) error {
			if t := transform(e, o); t != nil {
				return e.SetTransform(t)
			}
			return nil
		}})
	if err != nil {
		return err
	}
	if s.metrics != nil {
		s.metrics.watch(name, r.mapping.Resource.GroupResource())
	}
	if s.tables != nil {
		s.tables.watch(r) // a new informer's rows start afresh
	}
	return nil
}

// namespaced reports whether any of res lives in namespaces.
func namespaced(res []resource) bool {
	for _, r := range res {
		if r.namespaced() {
			return true
		}
	}
	return false
}

// fact is what the source knows of the named informer.
func (s *Source) fact(informer string) (informerFacts, bool) {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	f, ok := s.facts[informer]
	return f, ok
}

// WaitSynced implements source.Source: it waits for the informers that
// can sync. One the access check or discovery refused has its final
// reason already (the report says it), so waiting for it would only wait
// out --timeout: kubectl fails at once.
func (s *Source) WaitSynced(ctx context.Context) error {
	return s.Source.WaitSyncedExcept(ctx, func(name string) bool {
		f, _ := s.fact(name)
		return f.denied != "" || f.unwatched != ""
	})
}

// Decoding says how the named informer's objects are read.
func (s *Source) Decoding(informer string) Decoding { f, _ := s.fact(informer); return f.decoding }

// reason prefers what informtop checked itself over what the snapshot
// shows, and words the informer's link to the server when that is why it
// has not synced. It is asked only of informers that have not synced.
func (s *Source) reason(informer string, snap source.Informer) string {
	f, _ := s.fact(informer)
	switch {
	case f.unwatched != "":
		return f.unwatched
	case f.denied != "":
		return f.denied + s.othersKeepWorking(informer)
	}
	now := time.Now()
	return linkReason(snap, s.attempts.next(snap, now), now)
}

// othersKeepWorking is "; the other resources keep working" when some
// other informer is watching or listing, "" when none is.
func (s *Source) othersKeepWorking(informer string) string {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	for name := range s.working {
		if name != informer {
			return "; the other resources keep working"
		}
	}
	return ""
}

// linkReason says why an informer whose link is down has not synced, and
// when client-go tries again (next, the latest it will; zero if unknown);
// "" when its link is not why.
func linkReason(snap source.Informer, next, now time.Time) string {
	r := snap.Reflector
	switch source.LinkOf(snap, false) {
	case source.LinkWatchDown:
		return "watch down: " + say.ErrorReason(say.Cause(r.LastError), "the last list or watch failed") + retryWhen(next, now)
	case source.LinkRelistPending:
		what := "the server answered " + say.Cause(r.LastError)
		if source.Expired(r.LastError) {
			what = "the server answered 410 Gone (the resourceVersion is older than its history)"
		}
		return "relist pending: " + what + "; client-go lists again" + strings.TrimPrefix(retryWhen(next, now), "; client-go retries")
	case source.LinkForbidden:
		return "forbidden: " + say.ErrorReason(say.Cause(r.LastError), "the server refused it") + retryWhen(next, now)
	}
	return ""
}

// retryWhen is "; client-go retries within 12s (its backoff)", or without
// the time when it is not known.
func retryWhen(next, now time.Time) string {
	if next.IsZero() {
		return "; client-go retries with backoff"
	}
	if d := next.Sub(now).Round(time.Second); d > 0 {
		return "; client-go retries within " + d.String() + " (its backoff)"
	}
	return "; client-go retries any moment"
}

// status is the connection's state, from every informer's link: live
// while a watch is open or a list runs, and while the server's newest
// word is an answer (a 403, a 410: each informer's own state says
// those); disconnected when the newest thing known is that the server
// could not be reached, with when client-go tries again; connecting
// before anything. It also keeps when each backed-off informer tries
// again, for NextAttempts.
func (s *Source) status(snaps []source.Informer) source.Status {
	now := time.Now()
	next := make(map[string]time.Time)
	working := make(map[string]bool)
	var downErr string
	var downAt, upAt, retry time.Time
	live := false
	for _, snap := range snaps {
		s.attempts.observe(snap)
		if at := s.attempts.next(snap, now); !at.IsZero() {
			next[snap.Name] = at
		}
		if snap.Stopped {
			continue
		}
		r := snap.Reflector
		if r.WatchOpen || r.ListInProgress {
			live = true
			// A refused informer's reflector still retries its list: that
			// attempt will be refused again, so it is not "working" until
			// a watch opens (RBAC changed since the check).
			if f, _ := s.fact(snap.Name); f.denied == "" || r.WatchOpen {
				working[snap.Name] = true
			}
		}
		if r.LastHeard.After(upAt) {
			upAt = r.LastHeard
		}
		switch {
		case r.LastError == "":
		case source.Unreachable(r.LastError):
			if r.LastErrorTime.After(downAt) || downErr == "" {
				downErr, downAt = r.LastError, r.LastErrorTime
			}
			if at := next[snap.Name]; !at.IsZero() && (retry.IsZero() || at.Before(retry)) {
				retry = at
			}
		case r.LastErrorTime.After(upAt):
			upAt = r.LastErrorTime // an answer: 403, 410, 500
		}
	}
	s.factsMu.Lock()
	s.nextAt, s.working = next, working
	s.factsMu.Unlock()
	switch {
	case live, downErr == "" && !upAt.IsZero(), downErr != "" && upAt.After(downAt):
		return source.Status{State: source.Live}
	case downErr == "":
		return source.Status{State: source.Connecting, Message: "connecting to " + s.server}
	}
	cause := say.ErrorReason(say.Cause(downErr), "the last list or watch failed")
	return source.Status{State: source.Disconnected, LastError: cause, NextRetry: retry,
		Message: "no watch open on " + s.server + ": " + cause + retryWhen(retry, now)}
}

// kubeconfigError explains a kubeconfig that cannot be used.
func kubeconfigError(err error) error {
	if clientcmd.IsEmptyConfig(err) {
		return fmt.Errorf("no usable kubeconfig: %v; set KUBECONFIG or --kubeconfig, or run informtop --demo", err)
	}
	if os.IsNotExist(err) {
		return fmt.Errorf("the kubeconfig cannot be read: %v", err)
	}
	return fmt.Errorf("the kubeconfig cannot be used: %v; check --kubeconfig and --context", err)
}

// unknownContext names the contexts the kubeconfig has, as kubectl
// config get-contexts would.
func unknownContext(want string, have map[string]*clientcmdapi.Context) error {
	names := slices.Sorted(maps.Keys(have))
	if len(names) == 0 {
		return fmt.Errorf("the kubeconfig has no context %q, nor any other: check --kubeconfig", want)
	}
	return fmt.Errorf("the kubeconfig has no context %q; it has %s: pass one of them to --context", want, strings.Join(names, ", "))
}

// connectError explains a failed first contact with the API server.
func connectError(host string, err error) error {
	return fmt.Errorf("the API server at %s could not be used: %s", host, say.ErrorReason(err.Error(), "discovery failed"))
}

// serverOff says, per informer, that the figures were turned off, so the
// report tells so rather than leaving them out without a word.
func (s *Source) serverOff() map[string]source.ServerStats {
	s.factsMu.RLock()
	defer s.factsMu.RUnlock()
	out := make(map[string]source.ServerStats, len(s.facts))
	for name := range s.facts {
		out[name] = source.ServerStats{Reason: serverMetricsOff}
	}
	return out
}

// WaitServerRead returns once the first read of the API server's figures
// has ended (at once when they are not read), or when ctx ends.
func (s *Source) WaitServerRead(ctx context.Context) {
	if s.metrics != nil {
		s.metrics.waitRead(ctx)
	}
}

// WantServer implements source.ServerReader: the dashboard shows the API
// server's figures now.
func (s *Source) WantServer() {
	if s.metrics != nil {
		s.metrics.want()
	}
}

// Run runs the informers and, alongside, reads the API server's figures
// for their resources until ctx ends.
func (s *Source) Run(ctx context.Context) {
	var wg sync.WaitGroup
	if s.metrics != nil {
		wg.Go(func() { s.metrics.run(ctx) })
	}
	s.Source.Run(ctx)
	wg.Wait()
}

// resolveRedacted resolves the names --redact gives as -r resolves its
// own (plural, singular, short name, kind, plural.group) and makes their
// resources and kinds secret in the process's redaction policy: the
// policy matches informers by the resource they watch, so "wg" or
// "Widget" left as it is would redact nothing. A name the server does not
// serve is refused, with the names nearest to it.
func resolveRedacted(mapper meta.RESTMapper, disco discovery.DiscoveryInterface, names []string) error {
	var resources, kinds []string
	for _, arg := range names {
		m, err := resolve(mapper, arg)
		if err != nil {
			if errors.Is(err, errUnknown) || meta.IsNoMatchError(err) {
				lists, _ := disco.ServerPreferredResources()
				return fmt.Errorf("--redact %s: %w", arg, unknownResource(arg, lists))
			}
			return fmt.Errorf("cannot resolve --redact %s: %w", arg, err)
		}
		resources = append(resources, m.Resource.GroupResource().String())
		kinds = append(kinds, m.GroupVersionKind.Kind)
	}
	if len(resources) > 0 {
		redact.SetCurrent(redact.Current().WithResources(resources...).WithKinds(kinds...))
	}
	return nil
}

// teachRedactedKinds tells the process's redaction policy the kinds of the
// secret resources about to be watched: text that names only a kind (a
// logged response body, a whole-object annotation) is then redacted too.
func teachRedactedKinds(res []resource) {
	p := redact.Current()
	var kinds []string
	for _, r := range res {
		if p.SecretResource(r.name()) {
			kinds = append(kinds, r.mapping.GroupVersionKind.Kind)
		}
	}
	if len(kinds) > 0 {
		redact.SetCurrent(p.WithKinds(kinds...))
	}
}

// Controls implements source.Source: an in-process source's controls,
// plus verifying caches against the cluster, waiting for the API
// server's figures and kubectl's columns.
func (s *Source) Controls() source.Controls {
	c := s.Source.Controls()
	c.Verifier, c.Server, c.Retarget, c.Retry = s, s, s, s
	c.Table, c.Describe, c.Logs = s.tables, s.tables, s.tables
	return c
}
