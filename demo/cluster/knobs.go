package cluster

import "k8s.io/apimachinery/pkg/runtime"

// SnapshotOf is Snapshot as a client narrowed by sel sees the resource: only
// the objects its selector matches. Errors: unknown resource, unparsable or
// unsupported selector.
func (c *Cluster) SnapshotOf(resource string, sel Selector) (map[string]runtime.Object, error) {
	k, err := lookupKind(resource)
	if err != nil {
		return nil, err
	}
	f, err := parseFilter(k, sel.Namespace, sel.LabelSelector, sel.FieldSelector)
	if err != nil {
		return nil, err
	}
	all := c.Snapshot(resource)
	for key, obj := range all {
		if !f.matches(obj) {
			delete(all, key)
		}
	}
	return all, nil
}
