package kube

import (
	"context"
	"errors"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"
	"k8s.io/kubectl/pkg/describe"

	"github.com/informtop/informtop/agent/redact"
	"github.com/informtop/informtop/agent/source"
)

// describeChunk bounds the events kubectl's describers list per object,
// as kubectl describe's --chunk-size does for its pages.
const describeChunk = 500

var _ source.Describer = (*tables)(nil)

// Describe implements source.Describer with kubectl's own describers
// (k8s.io/kubectl/pkg/describe): the built-in one for the kind when there
// is one (a Secret's prints each value's size, never the value), else the
// generic one kubectl uses for custom resources. Events are included.
// They only get and list. A resource the redaction policy calls secret
// that is not a core Secret is refused: the generic describer would
// print its fields.
func (t *tables) Describe(ctx context.Context, informer, key string) (string, error) {
	tb := t.of(informer)
	if tb == nil {
		return "", source.NoInformer(informer)
	}
	ns, name, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return "", fmt.Errorf("%q is not a namespace/name key: %w", key, err)
	}
	gvk := tb.gvr.GroupVersion().WithKind(tb.kind)
	coreSecret := gvk.Group == "" && gvk.Kind == "Secret"
	if redact.Current().SecretResource(tb.resource) && !coreSecret {
		return "", fmt.Errorf("informtop does not describe %s: the redaction policy counts it as secret, and kubectl's generic describer prints every field", informer)
	}
	if why := t.mayNotDescribe(informer, key, tb.resource); why != "" {
		return "", errors.New(why)
	}
	cfg := t.configCopy()
	d, ok := describe.DescriberFor(gvk.GroupKind(), cfg)
	if !ok {
		scope := meta.RESTScopeRoot
		if tb.scoped {
			scope = meta.RESTScopeNamespace
		}
		d, ok = describe.GenericDescriberFor(&meta.RESTMapping{Resource: tb.gvr, GroupVersionKind: gvk, Scope: scope}, cfg)
	}
	if !ok {
		return "", fmt.Errorf("kubectl has no describer for %s, and its generic one could not be built", informer)
	}
	type answer struct {
		text string
		err  error
	}
	done := make(chan answer, 1)
	// kubectl's describers take no context: the config's timeout ends
	// a request the server never answers.
	go func() {
		text, err := d.Describe(ns, name, describe.DescriberSettings{ShowEvents: true, ChunkSize: describeChunk})
		done <- answer{text, err}
	}()
	select {
	case a := <-done:
		if a.err != nil {
			return "", fmt.Errorf("kubectl describe %s/%s failed: %w", informer, name, a.err)
		}
		return a.text, nil
	case <-ctx.Done():
		return "", fmt.Errorf("describe %s/%s was given up: %w", informer, name, ctx.Err())
	}
}

// mayNotDescribe is why the cached object must not be described, ""
// when it may: kubectl describe prints a ConfigMap's data and most
// annotations (all but last-applied), so an object the redaction policy
// finds copying a Secret, or carrying any annotation the policy names as
// holding a whole object, is not described at all; nor is one no longer
// cached (deleted meanwhile), which could not be judged.
func (t *tables) mayNotDescribe(informer, key, resource string) string {
	if t.cachedObject == nil {
		return ""
	}
	obj, ok := t.cachedObject(informer, key)
	if !ok {
		return fmt.Sprintf("%s is not in the cache any more (deleted since it was listed), so informtop does not describe it", key)
	}
	p := redact.Current()
	if a, err := meta.Accessor(obj); err == nil {
		for k := range a.GetAnnotations() {
			if p.WholeObjectAnnotation(k) && k != redact.LastApplied {
				return fmt.Sprintf("informtop does not describe %s: its annotation %s may hold a whole object, which kubectl describe would print", key, k)
			}
		}
	}
	if v := p.DecideObject(resource, obj); v.Secret && !p.SecretResource(resource) {
		return fmt.Sprintf("informtop does not describe %s: it carries a copy of a Secret, whose data kubectl describe would print; y shows it redacted", key)
	}
	return ""
}

// configCopy is the source's REST config for one use (the copy is the
// caller's to change).
func (t *tables) configCopy() *rest.Config { return rest.CopyConfig(t.config) }

// cachedObject is key's object in the named informer's cache.
func (s *Source) cachedObject(informer, key string) (any, bool) {
	e := s.Informer(informer)
	if e == nil {
		return nil, false
	}
	return e.Cached(key)
}
