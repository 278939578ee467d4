package cluster

import (
	"fmt"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apimachinery/pkg/watch"
)

// Create stores a copy of obj as a new object of the resource, filling in
// what the API server sets: kind, uid, creationTimestamp, resourceVersion,
// namespace "default" when empty. It returns a copy of what was stored.
func (c *Cluster) Create(resource string, obj runtime.Object) (runtime.Object, error) {
	st, obj, m, err := c.incoming(resource, obj)
	if err != nil {
		return nil, err
	}
	if m.GetName() == "" {
		return nil, apierrors.NewInvalid(st.kind.gvk.GroupKind(), "", field.ErrorList{field.Required(field.NewPath("metadata", "name"), "name is required")})
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	key := m.GetNamespace() + "/" + m.GetName()
	if _, exists := st.objects[key]; exists {
		return nil, apierrors.NewAlreadyExists(st.kind.gr, m.GetName())
	}
	if m.GetUID() == "" {
		m.SetUID(c.gen.uid())
	}
	if ts := m.GetCreationTimestamp(); ts.IsZero() {
		m.SetCreationTimestamp(c.gen.now())
	}
	c.createLocked(st, key, obj)
	return obj.DeepCopyObject(), nil
}

// CreateRandom creates a realistic generated object in namespace (one of
// Options.Namespaces at random when empty) and returns a copy of it.
func (c *Cluster) CreateRandom(resource, namespace string) (runtime.Object, error) {
	st, err := c.store(resource)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.createGeneratedLocked(st, namespace).DeepCopyObject(), nil
}

// Populate creates n realistic objects of the resource spread over the
// namespaces, with creation times in the past; the objects are a function
// of Options.Seed and of the calls made so far.
func (c *Cluster) Populate(resource string, n int) error {
	st, err := c.store(resource)
	if err != nil {
		return err
	}
	for range n {
		c.mu.Lock()
		c.gen.backdate = true
		c.createGeneratedLocked(st, "")
		c.gen.backdate = false
		c.mu.Unlock()
	}
	return nil
}

// Update makes a realistic, visible change to the object at key
// ("namespace/name"), bumping its resourceVersion; it returns a copy of the
// new object.
func (c *Cluster) Update(resource, key string) (runtime.Object, error) {
	st, err := c.store(resource)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := st.objects[key]; !ok {
		return nil, notFound(st, key)
	}
	return c.updateLocked(st, key).DeepCopyObject(), nil
}

// UpdateObject replaces an existing object with a copy of obj, like a PUT:
// a non-empty resourceVersion must match the stored one (409 Conflict
// otherwise); uid and creationTimestamp are kept from the stored object.
func (c *Cluster) UpdateObject(resource string, obj runtime.Object) (runtime.Object, error) {
	st, obj, m, err := c.incoming(resource, obj)
	if err != nil {
		return nil, err
	}
	key := m.GetNamespace() + "/" + m.GetName()
	c.mu.Lock()
	defer c.mu.Unlock()
	old, ok := st.objects[key]
	if !ok {
		return nil, notFound(st, key)
	}
	om, _ := meta.Accessor(old)
	if rv := m.GetResourceVersion(); rv != "" && rv != om.GetResourceVersion() {
		return nil, apierrors.NewConflict(st.kind.gr, m.GetName(),
			fmt.Errorf("the object has been modified; please apply your changes to the latest version and try again"))
	}
	m.SetUID(om.GetUID())
	m.SetCreationTimestamp(om.GetCreationTimestamp())
	obj.GetObjectKind().SetGroupVersionKind(st.kind.gvk)
	c.commitLocked(st, watch.Modified, key, obj, old)
	return obj.DeepCopyObject(), nil
}

// Delete removes the object at key and returns a copy of its last state.
func (c *Cluster) Delete(resource, key string) (runtime.Object, error) {
	st, err := c.store(resource)
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := st.objects[key]; !ok {
		return nil, notFound(st, key)
	}
	return c.deleteLocked(st, key).DeepCopyObject(), nil
}

// checkType rejects an object that is not of the resource's type: stored
// anyway, it would break every later list and watch of the resource.
func checkType(st *store, obj runtime.Object) error {
	if obj == nil {
		return fmt.Errorf("demo cluster: nil object for %s", st.kind.resource)
	}
	if got, want := fmt.Sprintf("%T", obj), fmt.Sprintf("%T", st.kind.newObj()); got != want {
		return fmt.Errorf("demo cluster: %s holds %s, not %s", st.kind.resource, want, got)
	}
	return nil
}

func notFound(st *store, key string) error {
	_, name, _ := cutKey(key)
	return apierrors.NewNotFound(st.kind.gr, name)
}

func cutKey(key string) (ns, name string, ok bool) {
	for i := 0; i < len(key); i++ {
		if key[i] == '/' {
			return key[:i], key[i+1:], true
		}
	}
	return "", key, false
}

// createGeneratedLocked generates and commits a new object. c.mu is held.
func (c *Cluster) createGeneratedLocked(st *store, namespace string) runtime.Object {
	if namespace == "" {
		namespace = c.gen.namespace()
	}
	obj := st.kind.generate(c.gen, namespace, func(key string) bool {
		_, taken := st.objects[key]
		return taken
	})
	m, _ := meta.Accessor(obj)
	c.createLocked(st, m.GetNamespace()+"/"+m.GetName(), obj)
	return obj
}

func (c *Cluster) createLocked(st *store, key string, obj runtime.Object) {
	obj.GetObjectKind().SetGroupVersionKind(st.kind.gvk)
	c.commitLocked(st, watch.Added, key, obj, nil)
}

// updateLocked applies the kind's realistic mutation to an existing key.
func (c *Cluster) updateLocked(st *store, key string) runtime.Object {
	old := st.objects[key]
	obj := st.kind.mutate(c.gen, old)
	c.commitLocked(st, watch.Modified, key, obj, old)
	return obj
}

// deleteLocked removes an existing key; the returned DELETED state is the
// last state stamped with the deletion's resourceVersion, as watchers see it.
func (c *Cluster) deleteLocked(st *store, key string) runtime.Object {
	old := st.objects[key]
	gone := old.DeepCopyObject()
	c.commitLocked(st, watch.Deleted, key, gone, old)
	return gone
}

// commitLocked assigns the next resourceVersion to obj (a fresh object the
// store now owns), applies the change, records it in etcd's history and
// hands it to the watch path. c.mu is held.
func (c *Cluster) commitLocked(st *store, typ watch.EventType, key string, obj, prev runtime.Object) {
	c.rv++
	m, _ := meta.Accessor(obj)
	m.SetResourceVersion(strconv.FormatUint(c.rv, 10))
	if typ == watch.Deleted {
		st.remove(key)
	} else {
		st.put(key, obj)
	}
	e := event{typ: typ, rv: c.rv, key: key, obj: obj, prev: prev}
	st.hist.add(e)
	c.stats.writes.Add(1)
	c.enqueueLocked(st, e)
}

// incoming checks a written object against its resource and returns a copy
// of it to store, with the namespace defaulted as the API server does.
func (c *Cluster) incoming(resource string, obj runtime.Object) (*store, runtime.Object, metav1.Object, error) {
	st, err := c.store(resource)
	if err != nil {
		return nil, nil, nil, err
	}
	if err := checkType(st, obj); err != nil {
		return nil, nil, nil, err
	}
	obj = obj.DeepCopyObject()
	m, err := meta.Accessor(obj) // fails only for a typed nil pointer
	if err != nil {
		return nil, nil, nil, fmt.Errorf("demo cluster: %s: %w", st.kind.resource, err)
	}
	if m.GetNamespace() == "" {
		m.SetNamespace("default")
	}
	return st, obj, m, nil
}
