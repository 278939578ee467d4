package fifo

import (
	"errors"
	"fmt"
	"slices"
	"testing"

	"k8s.io/client-go/tools/cache"
)

// Op codes of the fuzz program. Each operation is two bytes: code, argument.
const (
	dfOpAdd = iota
	dfOpUpdate
	dfOpDelete
	dfOpReplace
	dfOpResync
	dfOpPop
	dfOpPopFailing
	dfOpBadKey
	dfOpCloseOrPop
	dfOpToggleLookupFailure
	dfOpCount
)

const (
	dfFuzzKeys   = 4   // keys a..d
	dfFuzzMaxOps = 256 // longer inputs are cut, to keep each run fast
)

// FuzzDeltaFIFO runs a random program of queue operations against our
// DeltaFIFO and client-go's (the reference) with equal options and equal
// knownObjects stores, comparing both queues completely after every step.
//
// Input layout: byte 0 holds option flags (1 EmitDeltaTypeReplaced, 2 with
// knownObjects, 4 with a transformer, 8 known store seeded with two
// objects); then pairs of (op code, argument).
func FuzzDeltaFIFO(f *testing.F) {
	seeds := [][]byte{
		{0x00, dfOpAdd, 0, dfOpUpdate, 0, dfOpAdd, 1, dfOpPop, 0, dfOpPop, 0},
		{0x03, dfOpReplace, 0x07, dfOpPop, 0, dfOpAdd, 3, dfOpPop, 0, dfOpPop, 0, dfOpPop, 0, dfOpReplace, 0x01},
		{0x02, dfOpReplace, 0x0f, dfOpPop, 0, dfOpPop, 0, dfOpResync, 0, dfOpUpdate, 2, dfOpResync, 0, dfOpPop, 0},
		{0x0a, dfOpReplace, 0x00, dfOpPop, 0, dfOpPop, 0, dfOpDelete, 0x08, dfOpDelete, 0x04, dfOpDelete, 0x0c},
		{0x07, dfOpAdd, 0, dfOpDelete, 0x04, dfOpReplace, 0x02, dfOpReplace, 0x22, dfOpReplace, 0x00, dfOpPop, 0},
		{0x06, dfOpReplace, 0x43, dfOpReplace, 0x83, dfOpPopFailing, 1, dfOpBadKey, 0, dfOpBadKey, 1, dfOpBadKey, 2},
		{0x0b, dfOpToggleLookupFailure, 0, dfOpReplace, 0x02, dfOpResync, 0, dfOpDelete, 0x00, dfOpPop, 0, dfOpPop, 0},
		{0x01, dfOpAdd, 0, dfOpAdd, 1, dfOpCloseOrPop, 0, dfOpPop, 0, dfOpAdd, 2, dfOpPop, 0, dfOpPop, 0, dfOpPop, 0},
		{0x0e, dfOpReplace, 0x1f, dfOpPop, 0, dfOpReplace, 0x35, dfOpDelete, 0x09, dfOpResync, 0, dfOpPop, 0, dfOpPop, 0},
		{0x02, dfOpAdd, 0, dfOpPop, 0, dfOpDelete, 0x00, dfOpDelete, 0x0c, dfOpReplace, 0x00, dfOpDelete, 0x08},
		// two relists in a row without a queued key: the second tombstone
		// carries the object, not the first tombstone
		{0x01, dfOpAdd, 0, dfOpReplace, 0x02, dfOpReplace, 0x22, dfOpPop, 0, dfOpPop, 0},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		dfRunProgram(t, data[0], data[1:])
	})
}

// dfFuzzState is the program's view of the world: the newest object
// created for each key and a version counter making every object distinct.
type dfFuzzState struct {
	p       *dfPair
	last    [dfFuzzKeys]*dfTestObj
	version int
}

func (s *dfFuzzState) fresh(k int) *dfTestObj {
	s.version++
	s.last[k] = dfObj(string(rune('a'+k)), s.version)
	return s.last[k]
}

// newest returns the newest object handed out for key k, or a fresh one.
func (s *dfFuzzState) newest(k int) *dfTestObj {
	if s.last[k] == nil {
		return s.fresh(k)
	}
	return s.last[k]
}

func dfRunProgram(t *testing.T, flags byte, prog []byte) {
	emit, withKnown, transform := flags&1 != 0, flags&2 != 0, flags&4 != 0
	var seed []*dfTestObj
	if withKnown && flags&8 != 0 {
		seed = []*dfTestObj{dfObj("a", 0), dfObj("c", 0)}
	}
	s := &dfFuzzState{p: dfNewPair(emit, withKnown, transform, seed...)}
	if len(prog) > 2*dfFuzzMaxOps {
		prog = prog[:2*dfFuzzMaxOps]
	}
	for i := 0; i+1 < len(prog); i += 2 {
		code, arg := int(prog[i])%dfOpCount, prog[i+1]
		what := fmt.Sprintf("step %d (op %d arg %#x)", i/2, code, arg)
		s.step(t, what, code, arg)
		dfCheckInvariants(t, what, s.p.ours)
	}
}

func (s *dfFuzzState) step(t *testing.T, what string, code int, arg byte) {
	p, k := s.p, int(arg)%dfFuzzKeys
	switch code {
	case dfOpAdd:
		o := s.fresh(k)
		p.do(t, what, func(q cache.Queue) error { return q.Add(o) })
	case dfOpUpdate:
		o := s.fresh(k)
		p.do(t, what, func(q cache.Queue) error { return q.Update(o) })
	case dfOpDelete:
		var obj interface{}
		key := dfKey(string(rune('a' + k)))
		switch (arg >> 2) % 4 {
		case 0:
			obj = s.fresh(k)
		case 1:
			obj = s.newest(k)
		case 2:
			obj = cache.DeletedFinalStateUnknown{Key: key, Obj: s.newest(k)}
		case 3:
			obj = cache.DeletedFinalStateUnknown{Key: key}
		}
		p.do(t, what, func(q cache.Queue) error { return q.Delete(obj) })
	case dfOpReplace:
		list := s.relist(arg)
		p.do(t, what, func(q cache.Queue) error {
			// Each queue gets its own slice: Replace owns its argument.
			return q.Replace(slices.Clone(list), "rv")
		})
	case dfOpResync:
		p.do(t, what, func(q cache.Queue) error { return q.Resync() })
	case dfOpPop, dfOpPopFailing, dfOpCloseOrPop:
		if code == dfOpCloseOrPop && arg%4 == 0 {
			p.do(t, what, func(q cache.Queue) error { q.Close(); return nil })
			return
		}
		// An open empty queue would block forever; a closed one answers.
		if p.ours.Stats(0).Depth == 0 && !p.ours.IsClosed() {
			return
		}
		var procErr error
		if code == dfOpPopFailing && arg%2 == 1 {
			procErr = errors.New("handler failed")
		}
		p.pop(t, what, procErr)
	case dfOpBadKey:
		bad := fmt.Sprintf("not an object %d", arg)
		ops := []func(q cache.Queue) error{
			func(q cache.Queue) error { return q.Add(bad) },
			func(q cache.Queue) error { return q.Update(bad) },
			func(q cache.Queue) error { return q.Delete(bad) },
		}
		p.do(t, what, ops[int(arg)%len(ops)])
	case dfOpToggleLookupFailure:
		if p.knownOurs == nil {
			return
		}
		key := dfKey(string(rune('a' + k)))
		for _, kn := range []*dfKnown{p.knownOurs, p.knownRef} {
			kn.failKeys[key] = !kn.failKeys[key]
		}
		p.check(t, what)
	}
}

// relist builds a Replace list from arg: bits 0-3 choose the keys, bit 4
// reverses their order, bit 5 reuses the newest objects instead of new
// versions, bit 6 puts an unkeyable item in the middle and bit 7 lists the
// first key a second time at the end.
func (s *dfFuzzState) relist(arg byte) []interface{} {
	var list []interface{}
	for k := range dfFuzzKeys {
		if arg&(1<<k) == 0 {
			continue
		}
		if arg&0x20 != 0 {
			list = append(list, s.newest(k))
		} else {
			list = append(list, s.fresh(k))
		}
	}
	if arg&0x10 != 0 {
		slices.Reverse(list)
	}
	if arg&0x40 != 0 {
		list = slices.Insert(list, len(list)/2, interface{}("not an object"))
	}
	if arg&0x80 != 0 && len(list) > 0 {
		list = append(list, list[0])
	}
	return list
}

// dfCheckInvariants checks what must hold of our queue at any time.
func dfCheckInvariants(t *testing.T, what string, f *DeltaFIFO) {
	t.Helper()
	keys := f.ListKeys()
	st := f.Stats(len(keys) + 1)
	if st.Depth != len(keys) || len(st.Head) != len(keys) {
		t.Fatalf("%s: Depth %d, head %d rows, %d keys", what, st.Depth, len(st.Head), len(keys))
	}
	sum := 0
	for i, k := range keys {
		ds := f.Deltas(k)
		if len(ds) == 0 {
			t.Fatalf("%s: key %s queued with no deltas", what, k)
		}
		if n := len(ds); n >= 2 && ds[n-1].Type == cache.Deleted && ds[n-2].Type == cache.Deleted {
			t.Fatalf("%s: key %s ends in two deletes: %s", what, k, dfFormat(ds))
		}
		if st.Head[i].Key != k || !slices.Equal(st.Head[i].Types, dfTypesOf(ds)) {
			t.Fatalf("%s: head row %d is %+v, queue has %s %s", what, i, st.Head[i], k, dfFormat(ds))
		}
		sum += len(ds)
	}
	if st.Deltas != sum {
		t.Fatalf("%s: Stats.Deltas %d, rows hold %d", what, st.Deltas, sum)
	}
	if st.Added.Total()-st.Popped.Total() != uint64(sum) {
		t.Fatalf("%s: added %d - popped %d != %d queued", what, st.Added.Total(), st.Popped.Total(), sum)
	}
	// Every delta either opened a row or joined one; rows leave only by Pop.
	if st.Added.Total()-st.Coalesced != st.Pops+uint64(st.Depth) {
		t.Fatalf("%s: added %d - coalesced %d != pops %d + depth %d", what, st.Added.Total(), st.Coalesced, st.Pops, st.Depth)
	}
	if st.Synced != f.HasSynced() || st.Closed != f.IsClosed() {
		t.Fatalf("%s: Stats synced/closed %v/%v, queue says %v/%v", what, st.Synced, st.Closed, f.HasSynced(), f.IsClosed())
	}
	if n := min(2, len(keys)); len(f.Stats(2).Head) != n {
		t.Fatalf("%s: Stats(2) returned %d rows, want %d", what, len(f.Stats(2).Head), n)
	}
}
