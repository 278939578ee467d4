package cluster

import (
	"fmt"
	"sort"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Canonical resource names, as Resources returns them.
const (
	Pods        = "pods"
	ConfigMaps  = "configmaps"
	Deployments = "deployments.apps"
	Secrets     = "secrets"
)

// kind describes one served resource: how to build its objects and lists and
// which field selectors it supports. Kinds are immutable after init.
type kind struct {
	resource string // canonical name
	gr       schema.GroupResource
	gvk      schema.GroupVersionKind
	newObj   func() runtime.Object                       // empty object with TypeMeta set
	newList  func(items []runtime.Object) runtime.Object // deep-copies items into a typed list
	fields   func(obj runtime.Object) fields.Set         // selectable fields of obj
	generate func(g *generator, ns string, taken func(key string) bool) runtime.Object
	mutate   func(g *generator, obj runtime.Object) runtime.Object // a visibly changed deep copy
}

var kinds = []*kind{
	{
		resource: Pods,
		gr:       schema.GroupResource{Resource: "pods"},
		gvk:      corev1.SchemeGroupVersion.WithKind("Pod"),
		newObj:   func() runtime.Object { return &corev1.Pod{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "Pod")} },
		newList: func(items []runtime.Object) runtime.Object {
			return &corev1.PodList{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "PodList"), Items: copyItems[corev1.Pod](items)}
		},
		fields: func(obj runtime.Object) fields.Set {
			p := obj.(*corev1.Pod)
			s := metaFields(&p.ObjectMeta)
			s["spec.nodeName"] = p.Spec.NodeName
			s["spec.serviceAccountName"] = p.Spec.ServiceAccountName
			s["status.phase"] = string(p.Status.Phase)
			s["status.podIP"] = p.Status.PodIP
			return s
		},
		generate: genPod,
		mutate:   mutatePod,
	},
	{
		resource: ConfigMaps,
		gr:       schema.GroupResource{Resource: "configmaps"},
		gvk:      corev1.SchemeGroupVersion.WithKind("ConfigMap"),
		newObj: func() runtime.Object {
			return &corev1.ConfigMap{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "ConfigMap")}
		},
		newList: func(items []runtime.Object) runtime.Object {
			return &corev1.ConfigMapList{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "ConfigMapList"), Items: copyItems[corev1.ConfigMap](items)}
		},
		fields:   func(obj runtime.Object) fields.Set { return metaFields(&obj.(*corev1.ConfigMap).ObjectMeta) },
		generate: genConfigMap,
		mutate:   mutateConfigMap,
	},
	{
		resource: Deployments,
		gr:       schema.GroupResource{Group: "apps", Resource: "deployments"},
		gvk:      appsv1.SchemeGroupVersion.WithKind("Deployment"),
		newObj: func() runtime.Object {
			return &appsv1.Deployment{TypeMeta: typeMeta(appsv1.SchemeGroupVersion, "Deployment")}
		},
		newList: func(items []runtime.Object) runtime.Object {
			return &appsv1.DeploymentList{TypeMeta: typeMeta(appsv1.SchemeGroupVersion, "DeploymentList"), Items: copyItems[appsv1.Deployment](items)}
		},
		fields:   func(obj runtime.Object) fields.Set { return metaFields(&obj.(*appsv1.Deployment).ObjectMeta) },
		generate: genDeployment,
		mutate:   mutateDeployment,
	},
	{
		resource: Secrets,
		gr:       schema.GroupResource{Resource: "secrets"},
		gvk:      corev1.SchemeGroupVersion.WithKind("Secret"),
		newObj:   func() runtime.Object { return &corev1.Secret{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "Secret")} },
		newList: func(items []runtime.Object) runtime.Object {
			return &corev1.SecretList{TypeMeta: typeMeta(corev1.SchemeGroupVersion, "SecretList"), Items: copyItems[corev1.Secret](items)}
		},
		fields: func(obj runtime.Object) fields.Set {
			s := obj.(*corev1.Secret)
			f := metaFields(&s.ObjectMeta)
			f["type"] = string(s.Type)
			return f
		},
		generate: genSecret,
		mutate:   mutateSecret,
	},
}

// lookupKind resolves a resource name: the canonical name ("deployments.apps")
// or the bare plural ("deployments").
func lookupKind(resource string) (*kind, error) {
	for _, k := range kinds {
		if resource == k.resource || resource == k.gr.Resource {
			return k, nil
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = k.resource
	}
	return nil, fmt.Errorf("demo cluster: unknown resource %q (serves %s)", resource, strings.Join(names, ", "))
}

// supportedFields lists the field selector labels of k, sorted, for errors.
func (k *kind) supportedFields() []string {
	names := make([]string, 0, 8)
	for name := range k.fields(k.newObj()) {
		names = append(names, name)
	}
	sort.Strings(names)
	return names
}

func typeMeta(gv schema.GroupVersion, kind string) metav1.TypeMeta {
	return metav1.TypeMeta{APIVersion: gv.String(), Kind: kind}
}

func metaFields(m *metav1.ObjectMeta) fields.Set {
	return fields.Set{"metadata.name": m.Name, "metadata.namespace": m.Namespace}
}

// copyItems deep-copies stored objects into the value slice a typed list holds.
func copyItems[T any, P interface {
	*T
	DeepCopyInto(*T)
}](objs []runtime.Object) []T {
	out := make([]T, len(objs))
	for i, o := range objs {
		o.(P).DeepCopyInto(&out[i])
	}
	return out
}
