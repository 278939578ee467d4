// Package kube is the source of a real cluster: kubectl's connection flags
// (k8s.io/cli-runtime), resources resolved through discovery and a
// deferred RESTMapper with kubectl's short names, one engine informer per
// resource on an embedded local.Source, and a sentence for every informer
// that has not synced. Toward the cluster it is read-only: besides
// discovery and SelfSubjectAccessReviews it only lists and watches, and
// gets the objects the Store view shows as kubectl get prints them
// (table.go).
//
// Decoding is chosen per resource: kinds client-go's scheme knows are
// listed and watched as protobuf into typed objects (the cheapest wire
// format a server serves, and the smallest objects in memory); others
// (CRDs) as JSON into unstructured objects; --metadata-only asks for
// PartialObjectMetadata (protobuf) whatever the kind and caches it compactly
// (compactMeta: interned labels and annotations, no maps).
package kube
