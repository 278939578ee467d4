package fifo

import (
	"errors"
	"fmt"
	"reflect"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/cache"
)

// rfOpKind is one thing the reflector or the consumer does to a queue.
type rfOpKind uint8

const (
	rfOpAdd        rfOpKind = iota // Add pod k<arg%4>
	rfOpUpdate                     // Update pod k<arg%4>
	rfOpDelete                     // Delete pod k<arg%4>
	rfOpDeleteTomb                 // Delete a DeletedFinalStateUnknown for k<arg%4>
	rfOpAddBadKey                  // Add an object without metadata: key error
	rfOpAddRefused                 // Add a pod the transformer refuses
	rfOpReplace                    // Replace with the pods of mask arg&15; arg&16 adds a refused pod, arg&32 a bad-key object
	rfOpResync
	rfOpBookmark
	rfOpPop      // Pop, if anything is queued
	rfOpPopBatch // PopBatch, if anything is queued
	rfOpKinds
)

type rfOp struct {
	kind rfOpKind
	arg  byte
}

func (o rfOp) String() string {
	names := [...]string{"Add", "Update", "Delete", "DeleteTomb", "AddBadKey", "AddRefused", "Replace", "Resync", "Bookmark", "Pop", "PopBatch"}
	return fmt.Sprintf("%s(%d)", names[o.kind], o.arg)
}

// rfConfig is one option combination, as the fuzzer picks it.
type rfConfig struct {
	atomic, unlock, bookmarks, transform bool
	batchSize                            int
}

func rfDecodeConfig(b byte) rfConfig {
	c := rfConfig{atomic: b&1 != 0, transform: b&8 != 0}
	if c.atomic {
		c.unlock = b&2 != 0
		c.bookmarks = b&4 != 0
	}
	c.batchSize = [...]int{realBatchSize, 1, 2, 3}[(b>>4)&3]
	return c
}

func rfDecodeOps(data []byte) []rfOp {
	ops := make([]rfOp, 0, len(data)/2)
	for i := 0; i+1 < len(data) && len(ops) < 300; i += 2 {
		ops = append(ops, rfOp{kind: rfOpKind(data[i] % byte(rfOpKinds)), arg: data[i+1]})
	}
	return ops
}

// rfDiff drives our RealFIFO and client-go's side by side in one goroutine
// and fails as soon as they differ in errors, hand-overs, contents or sync
// state, or ours breaks an invariant.
type rfDiff struct {
	t         testing.TB
	cfg       rfConfig
	ours      *RealFIFO
	ref       *cache.RealFIFO
	oursC     rfConsumer
	refC      rfConsumer
	rv        int
	step      int
	wasSynced bool
	popping   bool // true while ours is handing over, for the initial-flag check
	// handed counts what ours handed its consumer: items, and deltas as
	// Stats counts them (a ReplacedAll as its objects).
	handedItems, handedDeltas uint64
}

// rfWeight is how many deltas Stats counts item d as.
func rfWeight(d cache.Delta) uint64 {
	if info, ok := d.Object.(cache.ReplacedAllInfo); ok && d.Type == cache.ReplacedAll {
		return uint64(len(info.Objects))
	}
	return 1
}

func rfNewDiff(t testing.TB, cfg rfConfig) *rfDiff {
	d := &rfDiff{t: t, cfg: cfg}
	mk := func(known *rfKnown) cache.RealFIFOOptions {
		o := cache.RealFIFOOptions{
			AtomicEvents:          cfg.atomic,
			UnlockWhileProcessing: cfg.unlock,
			EmitDeltaTypeBookmark: cfg.bookmarks,
		}
		if cfg.transform {
			o.Transformer = rfTransform
		}
		if !cfg.atomic {
			o.KnownObjects = known
		}
		return o
	}
	d.oursC.known, d.refC.known = rfNewKnown(), rfNewKnown()
	d.ours = NewRealFIFO(mk(d.oursC.known))
	d.ref = cache.NewRealFIFOWithOptions(mk(d.refC.known))
	d.ours.batchSize = cfg.batchSize
	rfSetRefBatchSize(t, d.ref, cfg.batchSize)
	d.oursC.check = d.checkHandOver
	return d
}

func (d *rfDiff) pod(arg byte) *corev1.Pod {
	d.rv++
	return rfPod("k"+strconv.Itoa(int(arg%4)), strconv.Itoa(d.rv))
}

// args builds the argument of an op once, so both queues get the same objects.
func (d *rfDiff) args(op rfOp) (obj interface{}, list []interface{}) {
	switch op.kind {
	case rfOpAdd, rfOpUpdate, rfOpDelete:
		return d.pod(op.arg), nil
	case rfOpDeleteTomb:
		p := d.pod(op.arg)
		return cache.DeletedFinalStateUnknown{Key: p.Namespace + "/" + p.Name, Obj: p}, nil
	case rfOpAddBadKey:
		return "no-metadata", nil
	case rfOpAddRefused:
		p := d.pod(op.arg)
		p.Labels = map[string]string{"rf-bad": "yes"}
		return p, nil
	case rfOpReplace:
		for i := byte(0); i < 4; i++ {
			if op.arg&(1<<i) != 0 {
				list = append(list, d.pod(i))
			}
		}
		if op.arg&16 != 0 {
			p := d.pod(op.arg >> 6)
			p.Labels = map[string]string{"rf-bad": "yes"}
			list = append(list, p)
		}
		if op.arg&32 != 0 {
			list = append(list, "no-metadata")
		}
	}
	return nil, list
}

// apply runs op on one queue, which must be ours or ref.
func (d *rfDiff) apply(q interface {
	cache.QueueWithBatch
	Bookmark(string) error
}, c *rfConsumer, op rfOp, obj interface{}, list []interface{}) error {
	switch op.kind {
	case rfOpAdd, rfOpAddBadKey, rfOpAddRefused:
		return q.Add(obj)
	case rfOpUpdate:
		return q.Update(obj)
	case rfOpDelete, rfOpDeleteTomb:
		return q.Delete(obj)
	case rfOpReplace:
		// Each queue owns the list it is given.
		return q.Replace(append([]interface{}(nil), list...), strconv.Itoa(d.rv))
	case rfOpResync:
		return q.Resync()
	case rfOpBookmark:
		return q.Bookmark(strconv.Itoa(d.rv))
	case rfOpPop:
		return c.pop(q)
	case rfOpPopBatch:
		return c.popBatch(q)
	}
	return nil
}

func (d *rfDiff) do(op rfOp) {
	d.t.Helper()
	d.step++
	where := fmt.Sprintf("step %d %v %+v", d.step, op, d.cfg)
	if op.kind == rfOpPop || op.kind == rfOpPopBatch {
		ours, ref := d.ours.rfLen(), len(rfRefItems(d.t, d.ref))
		if ours != ref {
			d.t.Fatalf("%s: ours holds %d items, client-go %d", where, ours, ref)
		}
		if ours == 0 {
			return // popping would block
		}
	}
	obj, list := d.args(op)
	d.wasSynced = d.ours.HasSynced()
	d.popping = true
	errOurs := d.apply(d.ours, &d.oursC, op, obj, list)
	d.popping = false
	errRef := d.apply(d.ref, &d.refC, op, obj, list)
	if rfErrString(errOurs) != rfErrString(errRef) {
		d.t.Fatalf("%s: error\n ours     %v\n client-go %v", where, errOurs, errRef)
	}
	if errors.Is(errRef, errRfTransform) != errors.Is(errOurs, errRfTransform) {
		d.t.Fatalf("%s: transform error not wrapped alike: ours %v, client-go %v", where, errOurs, errRef)
	}
	if got, want := d.oursC.take(), d.refC.take(); !reflect.DeepEqual(got, want) {
		d.t.Fatalf("%s: handed over\n ours      %v\n client-go %v", where, got, want)
	}
	d.compare(where)
}

func (d *rfDiff) compare(where string) {
	d.t.Helper()
	if got, want := d.ours.rfQueued(), rfRefQueued(d.t, d.ref); !reflect.DeepEqual(got, want) {
		d.t.Fatalf("%s: queued\n ours      %q\n client-go %q", where, got, want)
	}
	if got, want := d.ours.HasSynced(), d.ref.HasSynced(); got != want {
		d.t.Fatalf("%s: HasSynced ours %v, client-go %v", where, got, want)
	}
	d.ours.lock.Lock()
	ic := d.ours.initialPopulationCount
	d.ours.lock.Unlock()
	if want := rfRefInitialCount(d.t, d.ref); ic != want {
		d.t.Fatalf("%s: initialPopulationCount ours %d, client-go %d", where, ic, want)
	}
	if !reflect.DeepEqual(d.oursC.known.ListKeys(), d.refC.known.ListKeys()) {
		d.t.Fatalf("%s: consumer stores differ: %q vs %q", where, d.oursC.known.ListKeys(), d.refC.known.ListKeys())
	}
	d.checkStats(where)
}

// checkHandOver checks what ours hands its consumer against rules that hold
// whatever client-go does.
func (d *rfDiff) checkHandOver(via string, initial bool, ds []cache.Delta) {
	d.t.Helper()
	for _, delta := range ds {
		d.handedItems++
		d.handedDeltas += rfWeight(delta)
	}
	if d.popping && initial == d.wasSynced {
		d.t.Fatalf("step %d: isInInitialList=%v although HasSynced was %v before the pop", d.step, initial, d.wasSynced)
	}
	switch via {
	case "pop", "single":
		if len(ds) != 1 {
			d.t.Fatalf("step %d: %s handed %d deltas", d.step, via, len(ds))
		}
	case "batch":
		if len(ds) < 2 || len(ds) > d.cfg.batchSize {
			d.t.Fatalf("step %d: batch of %d with batch size %d", d.step, len(ds), d.cfg.batchSize)
		}
		seen := map[string]bool{}
		for _, delta := range ds {
			if !realBatchable(delta.Type) {
				d.t.Fatalf("step %d: %s delta inside a batch", d.step, delta.Type)
			}
			key, err := d.ours.keyOf(delta)
			if err != nil || seen[key] {
				d.t.Fatalf("step %d: batch key %q repeated or broken (%v): %q", d.step, key, err, rfDescAll(ds))
			}
			seen[key] = true
		}
	}
}

func (d *rfDiff) checkStats(where string) {
	d.t.Helper()
	s := d.ours.Stats(3)
	queued := d.ours.rfQueued()
	if s.Depth != len(queued) || s.Deltas != s.Depth {
		d.t.Fatalf("%s: Stats depth %d deltas %d, queue holds %d", where, s.Depth, s.Deltas, len(queued))
	}
	var held uint64
	d.ours.lock.Lock()
	for i := range d.ours.items.len() {
		held += rfWeight(d.ours.items.at(i).delta)
	}
	d.ours.lock.Unlock()
	if held != s.Added.Total()-s.Popped.Total() {
		d.t.Fatalf("%s: %d deltas held != added %d - popped %d", where, held, s.Added.Total(), s.Popped.Total())
	}
	if s.Pops != d.handedItems || s.Popped.Total() != d.handedDeltas || s.Coalesced != 0 {
		d.t.Fatalf("%s: pops %d popped %d coalesced %d; handed over %d items, %d deltas", where, s.Pops, s.Popped.Total(), s.Coalesced, d.handedItems, d.handedDeltas)
	}
	if len(s.Head) != min(3, len(queued)) {
		d.t.Fatalf("%s: head has %d rows for %d items", where, len(s.Head), len(queued))
	}
	d.ours.lock.Lock()
	for i, row := range s.Head {
		it := d.ours.items.at(i)
		if len(row.Types) != 1 || row.Types[0] != it.delta.Type || row.Key != it.key || !row.Enqueued.Equal(time.Unix(0, it.at)) {
			d.t.Errorf("%s: head row %d is %+v, item is %q", where, i, row, queued[i])
		}
	}
	d.ours.lock.Unlock()
	if d.wasSynced && !s.Synced {
		d.t.Fatalf("%s: synced went back to false", where)
	}
	select {
	case <-d.ours.HasSyncedChecker().Done():
		if !s.Synced {
			d.t.Fatalf("%s: Done closed but not synced", where)
		}
	default:
		if s.Synced {
			d.t.Fatalf("%s: synced but Done still open", where)
		}
	}
}

// finish closes both queues and checks they drain the same items, then
// report ErrFIFOClosed.
func (d *rfDiff) finish() {
	d.t.Helper()
	d.ours.Close()
	d.ref.Close()
	for d.ours.rfLen() > 0 {
		d.do(rfOp{kind: rfOpPopBatch})
	}
	d.compare("after drain")
	c := &rfConsumer{}
	if err := c.popBatch(d.ours); !errors.Is(err, cache.ErrFIFOClosed) {
		d.t.Fatalf("PopBatch on closed empty queue: %v", err)
	}
	if err := c.pop(d.ref); !errors.Is(err, cache.ErrFIFOClosed) {
		d.t.Fatalf("client-go Pop on closed empty queue: %v", err)
	}
	if len(c.got) != 0 {
		d.t.Fatalf("closed empty queues handed over %v", c.got)
	}
}

func rfErrString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

func FuzzRealFIFO(f *testing.F) {
	seeds := [][]byte{
		// atomic, unlock, bookmarks: replace first, then events and pops
		{0x07, byte(rfOpReplace), 0x03, byte(rfOpAdd), 2, byte(rfOpBookmark), 0, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0, byte(rfOpResync), 0, byte(rfOpPop), 0},
		// atomic, batch size 2, transformer: repeated keys split batches
		{0x29, byte(rfOpAdd), 1, byte(rfOpUpdate), 1, byte(rfOpAdd), 2, byte(rfOpAdd), 3, byte(rfOpDelete), 1, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
		// non-atomic: list, pop half, relist with deletions
		{0x00, byte(rfOpReplace), 0x0f, byte(rfOpPop), 0, byte(rfOpPopBatch), 0, byte(rfOpDelete), 2, byte(rfOpReplace), 0x01, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
		// non-atomic with transformer: resync skips queued keys
		{0x08, byte(rfOpReplace), 0x07, byte(rfOpPopBatch), 0, byte(rfOpUpdate), 1, byte(rfOpResync), 0, byte(rfOpPopBatch), 0, byte(rfOpResync), 0, byte(rfOpPop), 0},
		// non-atomic: refused pod in a relist leaves a prefix queued
		{0x08, byte(rfOpAdd), 0, byte(rfOpReplace), 0x13, byte(rfOpReplace), 0x23, byte(rfOpPopBatch), 0, byte(rfOpPop), 0},
		// atomic, bookmarks before the first list count as initial items
		{0x05, byte(rfOpBookmark), 0, byte(rfOpResync), 0, byte(rfOpReplace), 0x05, byte(rfOpPop), 0, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
		// atomic, transformer: key errors, a refused Add and tombstones
		{0x09, byte(rfOpAddBadKey), 0, byte(rfOpDeleteTomb), 3, byte(rfOpAddRefused), 1, byte(rfOpReplace), 0x2f, byte(rfOpPopBatch), 0},
		// non-atomic, batch size 3: the second batch stops at the end of the
		// initial list although the next item's key is new to it
		{0x30, byte(rfOpReplace), 0x0f, byte(rfOpAdd), 1, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
		// atomic without unlock, batch size 3: a full batch, then ReplacedAll alone
		{0x31, byte(rfOpAdd), 0, byte(rfOpAdd), 1, byte(rfOpAdd), 2, byte(rfOpAdd), 3, byte(rfOpPopBatch), 0, byte(rfOpReplace), 0x0f, byte(rfOpPopBatch), 0},
		// atomic, unlock, transformer: a relist the transformer refuses queues
		// nothing and does not populate; the next one is transformed whole
		{0x0b, byte(rfOpReplace), 0x13, byte(rfOpReplace), 0x03, byte(rfOpAdd), 2, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
		// non-atomic, deletes queued before a relist need no second tombstone
		{0x00, byte(rfOpAdd), 0, byte(rfOpAdd), 1, byte(rfOpPopBatch), 0, byte(rfOpDelete), 0, byte(rfOpDeleteTomb), 1, byte(rfOpReplace), 0x04, byte(rfOpPopBatch), 0, byte(rfOpPopBatch), 0},
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		d := rfNewDiff(t, rfDecodeConfig(data[0]))
		for _, op := range rfDecodeOps(data[1:]) {
			d.do(op)
		}
		d.finish()
	})
}
