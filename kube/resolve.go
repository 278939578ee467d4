package kube

import (
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// resource is one resolved -r argument.
type resource struct {
	arg     string
	mapping *meta.RESTMapping
	// verbs are the verbs discovery lists for the resource; nil if unknown.
	verbs []string
}

// name is how the informer is called: "pods", "deployments.apps".
func (r resource) name() string { return r.mapping.Resource.GroupResource().String() }

func (r resource) namespaced() bool {
	return r.mapping.Scope != nil && r.mapping.Scope.Name() == meta.RESTScopeNameNamespace
}

// resolve maps an argument as kubectl does: a fully specified
// resource.version.group first, then resource.group, then a kind.
func resolve(mapper meta.RESTMapper, arg string) (*meta.RESTMapping, error) {
	arg = strings.ToLower(strings.TrimSpace(arg))
	if arg == "" {
		return nil, errors.New("an empty resource name")
	}
	fullGVR, gr := schema.ParseResourceArg(arg)
	var gvk schema.GroupVersionKind
	if fullGVR != nil {
		gvk, _ = mapper.KindFor(*fullGVR)
	}
	if gvk.Empty() {
		var err error
		if gvk, err = mapper.KindFor(gr.WithVersion("")); err != nil && !meta.IsNoMatchError(err) {
			return nil, err
		}
	}
	if !gvk.Empty() {
		return mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	}
	// A kind, as in "Deployment" or "Deployment.apps".
	fullGVK, gk := schema.ParseKindArg(arg)
	if fullGVK == nil {
		gvk := gk.WithVersion("")
		fullGVK = &gvk
	}
	if !fullGVK.Empty() {
		if m, err := mapper.RESTMapping(fullGVK.GroupKind(), fullGVK.Version); err == nil {
			return m, nil
		}
	}
	m, err := mapper.RESTMapping(gk)
	if err != nil {
		return nil, errUnknown
	}
	return m, nil
}

var errUnknown = errors.New("unknown resource")

// resources resolves every argument; an unknown one is an error naming it
// and the closest names the server serves.
func resources(mapper meta.RESTMapper, disco discovery.DiscoveryInterface, args []string) ([]resource, error) {
	lists, discoErr := disco.ServerPreferredResources()
	var out []resource
	seen := map[string]bool{}
	for _, arg := range args {
		m, err := resolve(mapper, arg)
		if err != nil {
			if errors.Is(err, errUnknown) || meta.IsNoMatchError(err) {
				return nil, unknownResource(arg, lists)
			}
			return nil, fmt.Errorf("cannot resolve the resource %q: %w", arg, err)
		}
		r := resource{arg: arg, mapping: m, verbs: verbsOf(lists, m.Resource)}
		if seen[r.name()] {
			continue
		}
		seen[r.name()] = true
		out = append(out, r)
	}
	if len(out) == 0 && discoErr != nil {
		return nil, fmt.Errorf("discovery failed: %w", discoErr)
	}
	return out, nil
}

func verbsOf(lists []*metav1.APIResourceList, gvr schema.GroupVersionResource) []string {
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil || gv.Group != gvr.Group {
			continue
		}
		for _, r := range l.APIResources {
			if r.Name == gvr.Resource {
				return r.Verbs
			}
		}
	}
	return nil
}

// unknownResource says the name is not served and suggests the closest
// names that are (plural, singular, short names, plural.group).
func unknownResource(arg string, lists []*metav1.APIResourceList) error {
	var names []string
	eachResource(lists, func(r metav1.APIResource, full string) {
		names = append(names, r.Name, full, r.SingularName)
		names = append(names, r.ShortNames...)
	})
	close := closest(strings.ToLower(arg), names, 3)
	msg := fmt.Sprintf("the server has no resource %q", arg)
	if len(close) > 0 {
		msg += "; did you mean " + strings.Join(close, ", ") + "?"
	}
	return errors.New(msg + " (kubectl api-resources lists them all)")
}

// closest returns up to n names nearest to arg by edit distance, nearest
// first, skipping names too far away to be a typo.
func closest(arg string, names []string, n int) []string {
	type cand struct {
		name string
		d    int
	}
	var cs []cand
	seen := map[string]bool{}
	for _, name := range names {
		if name == "" || seen[name] {
			continue
		}
		seen[name] = true
		d := distance(arg, name)
		if d <= max(2, len(arg)/3) || strings.HasPrefix(name, arg) {
			cs = append(cs, cand{name, d})
		}
	}
	sort.SliceStable(cs, func(i, j int) bool {
		if cs[i].d != cs[j].d {
			return cs[i].d < cs[j].d
		}
		return cs[i].name < cs[j].name
	})
	var out []string
	for _, c := range cs {
		if len(out) == n {
			break
		}
		out = append(out, c.name)
	}
	return out
}

// distance is the Levenshtein distance between a and b.
func distance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// watchable reports whether discovery lists both list and watch; unknown
// verbs (nil) count as watchable, the server will say.
func (r resource) watchable() bool {
	return r.verbs == nil || (slices.Contains(r.verbs, "list") && slices.Contains(r.verbs, "watch"))
}

// eachResource calls fn for every resource discovery lists, subresources
// aside (they cannot be watched), with its name as kubectl writes it in
// full: plural.group, or the plural alone for the core group.
func eachResource(lists []*metav1.APIResourceList, fn func(r metav1.APIResource, full string)) {
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") {
				continue
			}
			full := r.Name
			if gv.Group != "" {
				full += "." + gv.Group
			}
			fn(r, full)
		}
	}
}
