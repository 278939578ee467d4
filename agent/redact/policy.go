package redact

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
)

// DefaultAnnotations are the annotations known to carry a copy of a whole
// object as some tool applied it: kubectl's client-side apply, kapp's
// original and its diff, and Rancher wrangler's apply (gzip, base64). On a
// Secret each holds the Secret's data.
var DefaultAnnotations = []string{
	LastApplied,
	"kapp.k14s.io/original",
	"kapp.k14s.io/original-diff",
	"objectset.rio.cattle.io/applied",
}

// LastApplied is kubectl's annotation holding the object as last applied.
const LastApplied = "kubectl.kubernetes.io/last-applied-configuration"

// Policy decides what informtop never shows: every value of an object of
// a secret resource (a Secret's data, or all but the metadata of another
// resource the user names), and the whole-object annotations of such
// objects. A Policy is immutable once built, so it may be shared freely.
type Policy struct {
	// resources holds resource names as kubectl prints them
	// (schema.GroupResource's String: "secrets", "sealedsecrets.bitnami.com").
	resources map[string]bool
	// kinds are the kinds of those resources, where a caller knew them:
	// objects carry a kind, not their resource.
	kinds map[string]bool
	// quotedKinds are kinds as JSON strings (`"Secret"`): a whole-object
	// annotation that holds none names no secret kind.
	quotedKinds []string
	annotations []string
}

// NewPolicy is the policy for secrets plus the resources given (kubectl's
// plural names, with their group: "sealedsecrets.bitnami.com"), and the
// default whole-object annotations plus those given. A source that can
// resolve other names (a cluster's discovery: short names, kinds) adds
// what they name with WithResources and WithKinds.
func NewPolicy(resources, annotations []string) (Policy, error) {
	p := Policy{resources: map[string]bool{"secrets": true}, kinds: map[string]bool{"Secret": true},
		quotedKinds: []string{`"Secret"`}, annotations: slices.Clone(DefaultAnnotations)}
	for _, r := range resources {
		name := strings.ToLower(strings.TrimSpace(r))
		if name == "" || strings.ContainsAny(name, " /=") {
			return Policy{}, fmt.Errorf("%q is not a resource name; name it as -r takes it, e.g. sealedsecrets.bitnami.com, sealedsecret or SealedSecret", r)
		}
		p.resources[name] = true
	}
	for _, a := range annotations {
		a = strings.TrimSpace(a)
		if a == "" || strings.ContainsAny(a, " =") {
			return Policy{}, fmt.Errorf("%q is not an annotation key, e.g. example.com/original", a)
		}
		if !slices.Contains(p.annotations, a) {
			p.annotations = append(p.annotations, a)
		}
	}
	return p, nil
}

// WithKinds returns p that also treats objects of these kinds as secret:
// a source that resolved a redacted resource to its kind tells the policy,
// so that text carrying only the kind (a logged response body) is redacted
// too.
func (p Policy) WithKinds(kinds ...string) Policy {
	q := p
	q.kinds = make(map[string]bool, len(p.kinds)+len(kinds))
	for k := range p.kinds {
		q.kinds[k] = true
	}
	q.quotedKinds = slices.Clone(p.quotedKinds)
	for _, k := range kinds {
		if k != "" && !q.kinds[k] {
			q.kinds[k] = true
			q.quotedKinds = append(q.quotedKinds, strconv.Quote(k))
		}
	}
	return q
}

// WithResources returns p that also treats these resources (kubectl's
// names, as schema.GroupResource prints them) as secret: a source that
// resolved the names the user gave (a short name, a kind) to the
// resources its informers are called by tells the policy.
func (p Policy) WithResources(resources ...string) Policy {
	q := p
	q.resources = make(map[string]bool, len(p.resources)+len(resources))
	for r := range p.resources {
		q.resources[r] = true
	}
	for _, r := range resources {
		q.resources[strings.ToLower(r)] = true
	}
	return q
}

// SecretResource reports whether every object of resource (kubectl's
// name, as schema.GroupResource prints it) holds secret data.
func (p Policy) SecretResource(resource string) bool { return p.resources[strings.ToLower(resource)] }

// Resources lists the secret resources, sorted.
func (p Policy) Resources() []string {
	out := make([]string, 0, len(p.resources))
	for r := range p.resources {
		out = append(out, r)
	}
	slices.Sort(out)
	return out
}

// WholeObjectAnnotation reports whether the annotation key carries a copy
// of a whole object.
func (p Policy) WholeObjectAnnotation(key string) bool { return slices.Contains(p.annotations, key) }

// current is the process's policy; the zero Policy is never stored.
var current atomic.Pointer[Policy]

func init() {
	p, _ := NewPolicy(nil, nil)
	current.Store(&p)
}

// Current is the policy every output of this process applies.
func Current() Policy { return *current.Load() }

// SetCurrent makes p the policy of every output of this process; a
// command sets it from its flags before it starts a source.
func SetCurrent(p Policy) {
	if p.resources == nil {
		panic("redact: SetCurrent with a Policy not made by NewPolicy")
	}
	current.Store(&p)
}
