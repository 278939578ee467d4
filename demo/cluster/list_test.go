package cluster

import (
	"context"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/pager"
	"k8s.io/utils/ptr"
)

// listAll pages through a list with limit, checking that every page reports
// the first page's resourceVersion and the right remaining count; between
// pages it calls between (to change the server under the list).
func listAll(t *testing.T, lw *ListerWatcher, opts metav1.ListOptions, between func()) (map[string]string, string, int) {
	t.Helper()
	seen := map[string]string{}
	listRV, pages := "", 0
	for {
		items, lm := mustList(t, lw, opts)
		pages++
		if listRV == "" {
			listRV = lm.GetResourceVersion()
		} else if lm.GetResourceVersion() != listRV {
			t.Fatalf("page %d at resourceVersion %s, first page at %s", pages, lm.GetResourceVersion(), listRV)
		}
		if opts.Limit > 0 && int64(len(items)) > opts.Limit {
			t.Fatalf("page %d has %d items, limit %d", pages, len(items), opts.Limit)
		}
		for _, it := range items {
			if _, dup := seen[keyOf(it)]; dup {
				t.Fatalf("%s listed twice", keyOf(it))
			}
			seen[keyOf(it)] = rvOf(it)
		}
		if lm.GetContinue() == "" {
			if lm.GetRemainingItemCount() != nil {
				t.Fatalf("last page reports %d remaining", *lm.GetRemainingItemCount())
			}
			return seen, listRV, pages
		}
		if between != nil {
			between()
		}
		opts.Continue, opts.ResourceVersion, opts.ResourceVersionMatch = lm.GetContinue(), "", ""
	}
}

func TestListPagingReturnsEveryObjectOnceAtOneResourceVersion(t *testing.T) {
	c := New(Options{Seed: 1})
	if err := c.Populate(Pods, 1234); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	want := serverRVs(c, Pods, nil)
	wl := NewWorkload(c, WorkloadOptions{Seed: 7, Resources: []string{Pods}})

	for _, rv := range []string{"", "0"} {
		before := c.Stats()
		// The workload creates, updates and deletes pods between pages;
		// the list must still be the state at its first page.
		got, listRV, pages := listAll(t, lw, metav1.ListOptions{ResourceVersion: rv, Limit: 100}, func() { wl.Step(25) })
		if d := rvDiff(got, want); d != "" {
			t.Fatalf("rv=%q: paged list differs from the state at its resourceVersion: %s", rv, d)
		}
		wantPages := (len(want) + 99) / 100
		if pages != wantPages {
			t.Fatalf("rv=%q: %d pages, want %d", rv, pages, wantPages)
		}
		after := c.Stats()
		if after.Lists-before.Lists != 1 || after.ListPages-before.ListPages != uint64(pages) {
			t.Fatalf("rv=%q: stats counted %d lists / %d pages, want 1 / %d", rv,
				after.Lists-before.Lists, after.ListPages-before.ListPages, pages)
		}
		if n, _ := strconv.ParseUint(listRV, 10, 64); n != c.ResourceVersion()-uint64(25*(pages-1)) {
			t.Fatalf("rv=%q: list resourceVersion %s, want the one before the workload ran", rv, listRV)
		}
		want = serverRVs(c, Pods, nil)
	}
}

func TestListRemainingItemCount(t *testing.T) {
	c := New(Options{Seed: 2})
	if err := c.Populate(ConfigMaps, 250); err != nil {
		t.Fatal(err)
	}
	total := int64(c.Len(ConfigMaps))
	lw := mustLW(t, c, ConfigMaps, Selector{})
	opts := metav1.ListOptions{Limit: 60}
	var listed int64
	for {
		items, lm := mustList(t, lw, opts)
		listed += int64(len(items))
		if lm.GetContinue() == "" {
			break
		}
		rem := lm.GetRemainingItemCount()
		if rem == nil || *rem != total-listed {
			t.Fatalf("after %d items remaining = %v, want %d", listed, rem, total-listed)
		}
		opts.Continue = lm.GetContinue()
	}
	if listed != total {
		t.Fatalf("listed %d, want %d", listed, total)
	}
}

func TestListExactResourceVersion(t *testing.T) {
	c := New(Options{Seed: 3})
	if err := c.Populate(Deployments, 40); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Deployments, Selector{})
	then := c.ResourceVersion()
	thenRV := strconv.FormatUint(then, 10)
	wantThen := serverRVs(c, Deployments, nil)
	NewWorkload(c, WorkloadOptions{Seed: 3, Resources: []string{Deployments}}).Step(60)
	now := serverRVs(c, Deployments, nil)
	if rvDiff(now, wantThen) == "" {
		t.Fatal("the workload changed nothing")
	}

	for name, opts := range map[string]metav1.ListOptions{
		"match=Exact":           {ResourceVersion: thenRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact},
		"legacy paginated list": {ResourceVersion: thenRV, Limit: 500},
		"exact, paged by 7":     {ResourceVersion: thenRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact, Limit: 7},
	} {
		got, listRV, _ := listAll(t, lw, opts, nil)
		if listRV != thenRV {
			t.Fatalf("%s: list at %s, want %s", name, listRV, thenRV)
		}
		if d := rvDiff(got, wantThen); d != "" {
			t.Fatalf("%s: not the state at %s: %s", name, thenRV, d)
		}
	}
	for name, opts := range map[string]metav1.ListOptions{
		"match=NotOlderThan":  {ResourceVersion: thenRV, ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan},
		"unset, no limit":     {ResourceVersion: thenRV},
		"consistent read":     {},
		"any (rv=0), limited": {ResourceVersion: "0", Limit: 1000},
	} {
		got, listRV, _ := listAll(t, lw, opts, nil)
		if listRV != strconv.FormatUint(c.ResourceVersion(), 10) {
			t.Fatalf("%s: list at %s, want the newest %d", name, listRV, c.ResourceVersion())
		}
		if d := rvDiff(got, now); d != "" {
			t.Fatalf("%s: not the newest state: %s", name, d)
		}
	}

	future := strconv.FormatUint(c.ResourceVersion()+10, 10)
	_, err := lw.List(metav1.ListOptions{ResourceVersion: future})
	if !apierrors.HasStatusCause(err, metav1.CauseTypeResourceVersionTooLarge) {
		t.Fatalf("list from the future: %v, want a ResourceVersionTooLarge cause", err)
	}

	c.ExpireHistory()
	_, err = lw.List(metav1.ListOptions{ResourceVersion: thenRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("exact list at a compacted resourceVersion: %v, want 410 Expired", err)
	}
	if got, _, _ := listAll(t, lw, metav1.ListOptions{ResourceVersion: thenRV}, nil); rvDiff(got, now) != "" {
		t.Fatal("a not-older-than list must still work after compaction")
	}
	if s := c.Stats(); s.Expired != 1 || s.Rejected != 1 {
		t.Fatalf("stats: %d expired, %d rejected; want 1, 1", s.Expired, s.Rejected)
	}
}

func TestContinueTokenExpiryMakesPagerFallBackToFullList(t *testing.T) {
	c := New(Options{Seed: 4})
	if err := c.Populate(Secrets, 300); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Secrets, Selector{})

	_, lm := mustList(t, lw, metav1.ListOptions{ResourceVersion: "0", Limit: 100})
	c.ExpireHistory()
	_, err := lw.List(metav1.ListOptions{Limit: 100, Continue: lm.GetContinue()})
	if !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue after compaction: %v, want 410 Expired", err)
	}

	// client-go's pager answers an expired continuation with one full list.
	before := c.Stats()
	pages := 0
	p := pager.New(func(ctx context.Context, opts metav1.ListOptions) (runtime.Object, error) {
		pages++
		if pages == 2 {
			c.ExpireHistory()
		}
		return lw.ListWithContext(ctx, opts)
	})
	p.PageSize = 100
	list, paginated, err := p.List(context.Background(), metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	if n := meta.LenList(list); n != 300 || !paginated {
		t.Fatalf("pager got %d items (paginated %v), want all 300 after falling back", n, paginated)
	}
	after := c.Stats()
	// page 1, the expired page 2, then the full list: two lists started.
	if after.Lists-before.Lists != 2 || after.Expired-before.Expired != 1 || pages != 3 {
		t.Fatalf("%d lists, %d expired, %d calls; want 2, 1, 3", after.Lists-before.Lists, after.Expired-before.Expired, pages)
	}
}

func TestListRejectsBadRequests(t *testing.T) {
	c := New(Options{})
	if err := c.Populate(Pods, 5); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	_, lm := mustList(t, lw, metav1.ListOptions{Limit: 2})
	cases := []struct {
		name string
		opts metav1.ListOptions
		is   func(error) bool
	}{
		{"resourceVersion with continue", metav1.ListOptions{Continue: lm.GetContinue(), ResourceVersion: "5"}, apierrors.IsBadRequest},
		{"garbage continue", metav1.ListOptions{Continue: "bm9wZQ"}, apierrors.IsBadRequest},
		{"unsupported field", metav1.ListOptions{FieldSelector: "spec.hostname=x"}, apierrors.IsBadRequest},
		{"bad label selector", metav1.ListOptions{LabelSelector: "app in (x"}, apierrors.IsBadRequest},
		{"bad resourceVersion", metav1.ListOptions{ResourceVersion: "abc"}, apierrors.IsBadRequest},
		{"sendInitialEvents on a list", metav1.ListOptions{SendInitialEvents: ptr.To(true)}, apierrors.IsInvalid},
		{"match without resourceVersion", metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact}, apierrors.IsInvalid},
	}
	for i, tc := range cases {
		_, err := lw.List(tc.opts)
		if !tc.is(err) {
			t.Errorf("%s: got %v", tc.name, err)
		}
		if got := c.Stats().Rejected; got != uint64(i+1) {
			t.Errorf("%s: %d rejected, want %d", tc.name, got, i+1)
		}
	}
	if _, err := c.ListerWatcher(Pods, Selector{FieldSelector: "status.hostIP=1.2.3.4"}); !apierrors.IsBadRequest(err) {
		t.Errorf("unsupported field in the ListerWatcher's selector: %v", err)
	}
	if _, err := c.ListerWatcher("replicasets", Selector{}); err == nil {
		t.Error("unknown resource accepted")
	}
}

func TestListSelectors(t *testing.T) {
	c := New(Options{Seed: 5})
	for _, r := range []string{Pods, ConfigMaps} {
		if err := c.Populate(r, 400); err != nil {
			t.Fatal(err)
		}
	}
	pods := c.Snapshot(Pods)
	someKey := c.Keys(Pods)[17]
	someNS, someName, _ := cutKey(someKey)
	cases := []struct {
		sel  Selector
		opts metav1.ListOptions
		want func(obj runtime.Object) bool
	}{
		{Selector{Namespace: "payments"}, metav1.ListOptions{},
			func(o runtime.Object) bool { return nsOf(o) == "payments" }},
		{Selector{LabelSelector: "tier=backend,team in (commerce,payments)"}, metav1.ListOptions{},
			func(o runtime.Object) bool {
				l := labelsOf(o)
				return l["tier"] == "backend" && (l["team"] == "commerce" || l["team"] == "payments")
			}},
		{Selector{Namespace: "checkout"}, metav1.ListOptions{LabelSelector: "app=cart"},
			func(o runtime.Object) bool { return nsOf(o) == "checkout" && labelsOf(o)["app"] == "cart" }},
		{Selector{FieldSelector: "metadata.name=" + someName}, metav1.ListOptions{},
			func(o runtime.Object) bool { return keyOf(o) == someKey }},
		{Selector{}, metav1.ListOptions{FieldSelector: "metadata.namespace=" + someNS + ",spec.nodeName!=node-a-01,status.phase=Running"},
			func(o runtime.Object) bool {
				p := o.(*corev1.Pod)
				return nsOf(o) == someNS && p.Spec.NodeName != "node-a-01" && p.Status.Phase == corev1.PodRunning
			}},
		{Selector{Namespace: "payments"}, metav1.ListOptions{FieldSelector: "metadata.namespace=search"},
			func(runtime.Object) bool { return false }},
	}
	for i, tc := range cases {
		want := map[string]string{}
		for k, o := range pods {
			if tc.want(o) {
				want[k] = rvOf(o)
			}
		}
		if len(want) == 0 && i != len(cases)-1 {
			t.Fatalf("case %d selects nothing; the test would prove little", i)
		}
		lw := mustLW(t, c, Pods, tc.sel)
		for _, limit := range []int64{0, 3} {
			opts := tc.opts
			opts.Limit = limit
			got, _, _ := listAll(t, lw, opts, nil)
			if d := rvDiff(got, want); d != "" {
				t.Fatalf("case %d (%+v, %+v, limit %d): %s", i, tc.sel, tc.opts, limit, d)
			}
		}
	}
}

func nsOf(o runtime.Object) string {
	m, _ := meta.Accessor(o)
	return m.GetNamespace()
}

func labelsOf(o runtime.Object) map[string]string {
	m, _ := meta.Accessor(o)
	return m.GetLabels()
}

func TestListContinueTokenOfAnotherNamespaceListsNothing(t *testing.T) {
	c := New(Options{Seed: 6})
	if err := c.Populate(Pods, 200); err != nil {
		t.Fatal(err)
	}
	// The last page of an all-namespace list resumes after a key in the
	// last namespace, past the whole "checkout" range.
	keys := c.Keys(Pods)
	_, lm := mustList(t, mustLW(t, c, Pods, Selector{}), metav1.ListOptions{Limit: int64(len(keys) - 1)})
	if lm.GetContinue() == "" {
		t.Fatal("no continue token")
	}
	items, next := mustList(t, mustLW(t, c, Pods, Selector{Namespace: "checkout"}), metav1.ListOptions{Limit: 5, Continue: lm.GetContinue()})
	if len(items) != 0 || next.GetContinue() != "" {
		t.Fatalf("got %d items and continue %q, want an empty last page", len(items), next.GetContinue())
	}
}

func TestListAtACompactedVersionIsGoneEvenIfCached(t *testing.T) {
	c := New(Options{Seed: 7, HistorySize: 10})
	if err := c.Populate(Pods, 30); err != nil {
		t.Fatal(err)
	}
	lw := mustLW(t, c, Pods, Selector{})
	// The first page caches the snapshot its continue token refers to.
	_, lm := mustList(t, lw, metav1.ListOptions{ResourceVersion: "0", Limit: 10})
	listRV := lm.GetResourceVersion()
	// Eleven more events push the list's version out of a 10-event history.
	for range 11 {
		if _, err := c.Update(Pods, c.Keys(Pods)[0]); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := lw.List(metav1.ListOptions{Limit: 10, Continue: lm.GetContinue()}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue at a compacted version: %v, want 410 Expired", err)
	}
	if _, err := lw.List(metav1.ListOptions{ResourceVersion: listRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact}); !apierrors.IsResourceExpired(err) {
		t.Fatalf("exact list at a compacted version: %v, want 410 Expired", err)
	}
	if s := c.Stats(); s.Expired != 2 {
		t.Fatalf("%d answers counted as expired, want 2", s.Expired)
	}
}
