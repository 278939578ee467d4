package cluster

import (
	"context"
	"slices"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// list serves one LIST request (one page) of the ListerWatcher's kind.
// See the package documentation for the resourceVersion rules.
func (c *Cluster) list(ctx context.Context, lw *ListerWatcher, opts metav1.ListOptions) (runtime.Object, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if !c.Available() {
		c.stats.refused.Add(1)
		return nil, errRefused(lw.kind, lw.filter.namespace, opts)
	}
	opts.Watch = false
	if err := validateOptions(opts, c.opts.WatchList); err != nil {
		return nil, c.countError(err)
	}
	req, err := parseFilter(lw.kind, "", opts.LabelSelector, opts.FieldSelector)
	if err != nil {
		return nil, c.countError(err)
	}
	f := lw.filter.and(req)
	st := c.stores[lw.kind]

	var snap *listSnapshot
	var after string
	if opts.Continue != "" {
		if opts.ResourceVersion != "" {
			return nil, c.countError(apierrors.NewBadRequest("specifying resource version is not allowed when using continue"))
		}
		tok, err := decodeContinue(opts.Continue)
		if err != nil {
			return nil, c.countError(err)
		}
		if snap, err = c.snapshot(st, tok.RV, false); err != nil {
			if isExpired(err) {
				err = errContinueExpired()
			}
			return nil, c.countError(err)
		}
		after = tok.After
	} else {
		rv, err := parseRV(opts.ResourceVersion)
		if err != nil {
			return nil, c.countError(err)
		}
		// Exact reads: resourceVersionMatch=Exact, or the legacy meaning of
		// a paginated list at a resourceVersion. Everything else is served
		// at the newest state, which is "not older than" any valid request.
		exact := rv != 0 && (opts.ResourceVersionMatch == metav1.ResourceVersionMatchExact ||
			(opts.ResourceVersionMatch == "" && opts.Limit > 0))
		if snap, err = c.snapshot(st, rv, !exact); err != nil {
			return nil, c.countError(err)
		}
	}

	items, next, remaining := page(snap, f, after, opts.Limit)
	list := lw.kind.newList(items)
	lm, _ := meta.ListAccessor(list)
	lm.SetResourceVersion(strconv.FormatUint(snap.rv, 10))
	if next != "" {
		lm.SetContinue(encodeContinue(snap.rv, next))
		lm.SetRemainingItemCount(remaining)
	}
	if opts.Continue == "" {
		c.stats.lists.Add(1)
		st.path.lists.Add(1)
	}
	c.stats.listPages.Add(1)
	c.stats.listedItems.Add(uint64(len(items)))
	return list, nil
}

// page selects up to limit (0: all) matching items after the key after. It
// returns the last key returned when more matching items follow (else ""),
// and how many remain when the filter allows counting them cheaply.
func page(snap *listSnapshot, f filter, after string, limit int64) ([]runtime.Object, string, *int64) {
	lo, hi := namespaceRange(snap.items, f.namespace)
	i := lo
	if after != "" {
		j, found := slices.BinarySearchFunc(snap.items, after, func(e entry, t string) int { return strings.Compare(e.key, t) })
		if found {
			j++
		}
		// A token from a list of another namespace can point past this
		// one's range: that is an empty page, not a negative capacity.
		i = min(max(i, j), hi)
	}
	var out []runtime.Object
	if limit > 0 {
		out = make([]runtime.Object, 0, min(limit, int64(hi-i)))
	}
	last := ""
	for ; i < hi; i++ {
		e := snap.items[i]
		if !f.matches(e.obj) {
			continue
		}
		if limit > 0 && int64(len(out)) == limit {
			var remaining *int64
			if f.onlyNamespace() {
				n := int64(hi - i)
				remaining = &n
			}
			return out, last, remaining
		}
		out = append(out, e.obj)
		last = e.key
	}
	return out, "", nil
}
