package verify

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// pagedServer serves objects at one version, n per page, and fails
// versions listed in compacted with 410 Gone.
type pagedServer struct {
	rv        string
	objects   map[string]string
	compacted map[string]bool
	requests  []metav1.ListOptions
}

func (s *pagedServer) list(_ context.Context, o metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
	s.requests = append(s.requests, o)
	if s.compacted[o.ResourceVersion] {
		return nil, apierrors.NewResourceExpired("too old resource version")
	}
	if o.Continue == "" && (o.ResourceVersion != s.rv || o.ResourceVersionMatch != metav1.ResourceVersionMatchExact) {
		return nil, apierrors.NewBadRequest(fmt.Sprintf("test server is at %s, asked %q %q", s.rv, o.ResourceVersion, o.ResourceVersionMatch))
	}
	var keys []string
	for k := range s.objects {
		keys = append(keys, k)
	}
	slices.Sort(keys) // stable pages by the continue offset
	from := 0
	if o.Continue != "" {
		fmt.Sscan(o.Continue, &from)
	}
	to := min(from+int(o.Limit), len(keys))
	l := &metav1.PartialObjectMetadataList{}
	for _, k := range keys[from:to] {
		ns, name, _ := strings.Cut(k, "/")
		l.Items = append(l.Items, metav1.PartialObjectMetadata{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, ResourceVersion: s.objects[k]}})
	}
	if to < len(keys) {
		l.Continue = fmt.Sprint(to)
	}
	return l, nil
}

func TestRunEqualAcrossPages(t *testing.T) {
	srv := &pagedServer{rv: "50", objects: map[string]string{"a/x": "1", "a/y": "2", "b/z": "3"}}
	cut := func(context.Context) (Cut, error) {
		return Cut{ResourceVersion: "50", Objects: map[string]string{"a/x": "1", "a/y": "2", "b/z": "3"}}, nil
	}
	r, err := Run(context.Background(), cut, srv.list, 2)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equal || r.Pages != 2 || r.Objects != 3 {
		t.Fatalf("%+v", r)
	}
	if got := r.Sentence(); got != "cache equals the server at RV 50 (3 objects)" {
		t.Errorf("sentence %q", got)
	}
	if srv.requests[1].ResourceVersion != "" || srv.requests[1].Continue == "" {
		t.Errorf("second page asked %+v; a continue token must go alone", srv.requests[1])
	}
}

func TestRunNamesDifferences(t *testing.T) {
	server := map[string]string{"ns/same": "1", "ns/changed": "9", "ns/new": "7"}
	for i := range 25 {
		server[fmt.Sprintf("ns/m%02d", i)] = "1"
	}
	srv := &pagedServer{rv: "60", objects: server}
	cut := func(context.Context) (Cut, error) {
		return Cut{ResourceVersion: "60", Objects: map[string]string{"ns/same": "1", "ns/changed": "8", "ns/gone": "3"}}, nil
	}
	r, err := Run(context.Background(), cut, srv.list, 10)
	if err != nil {
		t.Fatal(err)
	}
	if r.Equal || r.MissingCount != 26 || len(r.Missing) != Shown || r.Missing[0] != "ns/m00" ||
		r.ExtraCount != 1 || r.Extra[0] != "ns/gone" || r.StaleCount != 1 || r.Stale[0] != "ns/changed" {
		t.Fatalf("%+v", r)
	}
	want := "cache differs from the server at RV 60: 26 missing (ns/m00, ns/m01, ns/m02, … 23 more), 1 extra (ns/gone) and 1 stale (ns/changed)"
	if got := r.Sentence(); got != want {
		t.Errorf("sentence\n got %q\nwant %q", got, want)
	}
}

func TestRunRetriesACompactedVersion(t *testing.T) {
	srv := &pagedServer{rv: "80", objects: map[string]string{"a/x": "1"}, compacted: map[string]bool{"70": true}}
	rvs := []string{"70", "80"}
	cut := func(context.Context) (Cut, error) {
		rv := rvs[0]
		rvs = rvs[1:]
		return Cut{ResourceVersion: rv, Objects: map[string]string{"a/x": "1"}}, nil
	}
	r, err := Run(context.Background(), cut, srv.list, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !r.Equal || r.ResourceVersion != "80" || !strings.Contains(r.Sentence(), "compacted RV 70") {
		t.Fatalf("%+v: %s", r, r.Sentence())
	}
}

func TestRunGivesUpWithASentence(t *testing.T) {
	srv := &pagedServer{compacted: map[string]bool{"1": true}}
	cut := func(context.Context) (Cut, error) {
		return Cut{ResourceVersion: "1"}, nil
	}
	_, err := Run(context.Background(), cut, srv.list, 0)
	if err == nil || !strings.Contains(err.Error(), "verify again") {
		t.Fatalf("err %v", err)
	}
	forbidden := func(context.Context, metav1.ListOptions) (*metav1.PartialObjectMetadataList, error) {
		return nil, apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "", fmt.Errorf("RBAC"))
	}
	if _, err := Run(context.Background(), cut, forbidden, 0); err == nil || !strings.Contains(err.Error(), "listing at RV 1 failed") {
		t.Fatalf("err %v", err)
	}
}
