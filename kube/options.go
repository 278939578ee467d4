package kube

import (
	"fmt"
	"strings"
	"time"

	"k8s.io/cli-runtime/pkg/genericclioptions"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/source/local"
)

// WatchList selects how an informer gets its initial list.
type WatchList string

const (
	// WatchListAuto leaves it to client-go (streamed since v0.35, with a
	// fallback to LIST when the server refuses).
	WatchListAuto WatchList = "auto"
	// WatchListOn streams the initial list as a watch.
	WatchListOn WatchList = "on"
	// WatchListOff lists in pages.
	WatchListOff WatchList = "off"
)

// ParseWatchList reads --watch-list.
func ParseWatchList(s string) (WatchList, error) {
	switch w := WatchList(strings.ToLower(s)); w {
	case WatchListAuto, WatchListOn, WatchListOff:
		return w, nil
	case "true":
		return WatchListOn, nil
	case "false":
		return WatchListOff, nil
	}
	return "", fmt.Errorf("--watch-list takes auto, on or off, not %q", s)
}

// Options are what the kube source needs from the command line.
type Options struct {
	// Flags are kubectl's connection flags.
	Flags *genericclioptions.ConfigFlags
	// Resources as kubectl takes them: pods, po, deploy, deployments.apps,
	// deployments.v1.apps, a CRD's plural, singular, short name or
	// plural.group. Empty means pods.
	Resources []string
	// Redact are the resources --redact names, as Resources takes them:
	// New resolves each through discovery into the process's redaction
	// policy (redact.Current), and refuses a name the server does not
	// serve rather than redact nothing.
	Redact []string
	// AllNamespaces watches every namespace; otherwise --namespace or the
	// context's namespace.
	AllNamespaces bool
	LabelSelector string
	FieldSelector string
	// MetadataOnly lists and watches PartialObjectMetadata and caches each
	// object's metadata compactly.
	MetadataOnly bool
	// KeepManagedFields keeps metadata.managedFields in the cache.
	KeepManagedFields bool
	// StripLastApplied drops the kubectl.kubernetes.io/last-applied-configuration
	// annotation from cached objects.
	StripLastApplied bool
	// PageSize, when > 0, pages the initial LIST (and asks for a
	// consistent read, since a server serves resourceVersion 0 whole).
	PageSize  int64
	WatchList WatchList
	Queue     source.QueueKind
	// Listeners are simulated handlers registered on every informer,
	// besides informtop's own.
	Listeners []local.ListenerSpec
	// NoServerMetrics turns off reading the API server's /metrics
	// (--server-metrics=false).
	NoServerMetrics bool
	// ServerMetricsEvery is the least time between two reads of /metrics
	// (--server-metrics-every); 0 is DefaultServerMetricsEvery. It is read
	// only while the figures are shown or a report waits for them.
	ServerMetricsEvery time.Duration
	// AccessTimeout bounds discovery and the access checks.
	AccessTimeout time.Duration
}

// ParseListener reads --listener NAME=DELAY, e.g. slow=20ms.
func ParseListener(s string) (local.ListenerSpec, error) {
	name, delay, ok := strings.Cut(s, "=")
	if !ok || name == "" {
		return local.ListenerSpec{}, fmt.Errorf("--listener takes NAME=DELAY, e.g. --listener slow=20ms, not %q", s)
	}
	d, err := time.ParseDuration(delay)
	if err != nil || d < 0 {
		return local.ListenerSpec{}, fmt.Errorf("--listener %s: %q is not a duration such as 20ms or 1s", name, delay)
	}
	if name == ownListener {
		return local.ListenerSpec{}, fmt.Errorf("--listener %s: that name is informtop's own handler; pick another", name)
	}
	return local.ListenerSpec{Name: name, Delay: d}, nil
}

// ownListener is informtop's own handler on every informer.
const ownListener = "informtop"
