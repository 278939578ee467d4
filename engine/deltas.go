package engine

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/pipeline"
	"github.com/informtop/informtop/engine/processor"
)

// handleDeltas applies one popped queue item: every delta updates the
// indexer first, then the listeners are told, as client-go does.
func (inf *Informer) handleDeltas(obj any, isInInitialList bool) error {
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	defer inf.processed.Add(1)
	deltas, ok := obj.(cache.Deltas)
	if !ok {
		return fmt.Errorf("informer %s: queue handed over a %T, not cache.Deltas", inf.name, obj)
	}
	inf.emitPop(deltas)
	inf.recordDeltas(deltas, 1)
	for _, d := range deltas {
		if err := inf.applyDelta(d, isInInitialList); err != nil {
			return err
		}
	}
	return nil
}

// handleBatch applies a batch of deltas with unique keys. Like client-go,
// it uses the indexer's transaction so the whole batch lands at once, then
// notifies in order; only the operations that succeeded are notified.
func (inf *Informer) handleBatch(deltas []cache.Delta, isInInitialList bool) error {
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	defer inf.processed.Add(uint64(len(deltas))) // a RealFIFO item each
	if inf.verbose != nil {
		inf.verbose.Emit(instr.Event{Type: pipeline.EventPop, Informer: inf.name, Detail: "batch", Count: len(deltas)})
	}
	inf.recordDeltas(deltas, len(deltas))
	txns := make([]cache.Transaction, 0, len(deltas))
	notes := make([]any, 0, len(deltas))
	for _, d := range deltas {
		switch d.Type {
		case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
			if old, exists, err := inf.indexer.Get(d.Object); err == nil && exists {
				txns = append(txns, cache.Transaction{Type: cache.TransactionTypeUpdate, Object: d.Object})
				notes = append(notes, processor.UpdateNotification{Old: old, New: d.Object})
			} else {
				txns = append(txns, cache.Transaction{Type: cache.TransactionTypeAdd, Object: d.Object})
				notes = append(notes, processor.AddNotification{Obj: d.Object, IsInInitialList: isInInitialList})
			}
		case cache.Deleted:
			txns = append(txns, cache.Transaction{Type: cache.TransactionTypeDelete, Object: d.Object})
			notes = append(notes, processor.DeleteNotification{Obj: d.Object})
		default:
			return fmt.Errorf("informer %s: a %s delta cannot be processed in a batch", inf.name, d.Type)
		}
	}
	if txErr := inf.indexer.Transaction(txns...); txErr != nil {
		for _, i := range txErr.SuccessfulIndices {
			if i < len(notes) {
				inf.notify(notes[i])
			}
		}
		return fmt.Errorf("informer %s: not every item of the batch was stored: %s", inf.name, txErr.Error())
	}
	for i, n := range notes {
		if inf.verbose != nil {
			inf.verbose.Emit(instr.Event{Type: pipeline.EventStoreUpdate, Informer: inf.name, Detail: transactionOp(txns[i].Type), Obj: txns[i].Object})
		}
		if inf.step != nil {
			inf.step.result.Store = append(inf.step.result.Store, transactionOp(txns[i].Type)+" "+instr.KeyOf(txns[i].Object))
		}
		inf.notify(n)
	}
	return nil
}

func transactionOp(t cache.TransactionType) string {
	switch t {
	case cache.TransactionTypeAdd:
		return "Add"
	case cache.TransactionTypeUpdate:
		return "Update"
	}
	return "Delete"
}

// applyDelta is one step of client-go's processDeltas, in our own words.
func (inf *Informer) applyDelta(d cache.Delta, isInInitialList bool) error {
	switch d.Type {
	case cache.Added, cache.Updated, cache.Replaced, cache.Sync:
		old, exists, err := inf.indexer.Get(d.Object)
		if err == nil && exists {
			if err := inf.indexer.Update(d.Object); err != nil {
				return err
			}
			inf.recordStore("Update", d.Object)
			inf.notify(processor.UpdateNotification{Old: old, New: d.Object})
			return nil
		}
		if err := inf.indexer.Add(d.Object); err != nil {
			return err
		}
		inf.recordStore("Add", d.Object)
		inf.notify(processor.AddNotification{Obj: d.Object, IsInInitialList: isInInitialList})
	case cache.Deleted:
		if err := inf.indexer.Delete(d.Object); err != nil {
			return err
		}
		inf.recordStore("Delete", d.Object)
		inf.notify(processor.DeleteNotification{Obj: d.Object})
	case cache.ReplacedAll:
		info, ok := d.Object.(cache.ReplacedAllInfo)
		if !ok {
			return fmt.Errorf("informer %s: a ReplacedAll delta carried a %T", inf.name, d.Object)
		}
		return inf.replaceAll(info, isInInitialList)
	case cache.SyncAll:
		if _, ok := d.Object.(cache.SyncAllInfo); !ok {
			return fmt.Errorf("informer %s: a SyncAll delta carried a %T", inf.name, d.Object)
		}
		for _, obj := range inf.indexer.List() {
			inf.notify(processor.UpdateNotification{Old: obj, New: obj})
		}
	case cache.Bookmark:
		info, ok := d.Object.(cache.BookmarkInfo)
		if !ok {
			return fmt.Errorf("informer %s: a Bookmark delta carried a %T", inf.name, d.Object)
		}
		inf.indexer.Bookmark(info.ResourceVersion)
	}
	return nil
}

// replaceAll applies an atomic relist: the indexer is replaced first, then
// handlers get a DeletedFinalStateUnknown for every cached key missing from
// the new list, then an add or update for every listed object, in list order.
func (inf *Informer) replaceAll(info cache.ReplacedAllInfo, isInInitialList bool) error {
	// The indexer says what it replaced, so no key is computed or looked
	// up twice: on a large relist that was a fifth of the time.
	r, err := inf.indexer.ReplaceAll(info.Objects, info.ResourceVersion)
	if err != nil {
		return err
	}
	inf.recordStoreText(fmt.Sprintf("Replace %d objects (%d gone)", len(info.Objects), len(r.Gone)))
	for _, key := range r.Gone {
		inf.notify(processor.DeleteNotification{Obj: cache.DeletedFinalStateUnknown{Key: key, Obj: r.Old[key]}})
	}
	for n, obj := range info.Objects {
		if old, ok := r.Old[r.Keys[n]]; ok {
			inf.notify(processor.UpdateNotification{Old: old, New: obj})
		} else {
			inf.notify(processor.AddNotification{Obj: obj, IsInInitialList: isInInitialList})
		}
	}
	return nil
}

// notify hands a notification to the listeners. An update whose
// resourceVersion did not change is a sync: only listeners due for a
// resync get it, as in client-go.
func (inf *Informer) notify(n any) {
	sync := false
	switch n := n.(type) {
	case processor.AddNotification:
		inf.mutations.AddObject(n.Obj)
	case processor.UpdateNotification:
		inf.mutations.AddObject(n.New)
		sync = sameResourceVersion(n.Old, n.New)
	}
	inf.recordNotification(n, sync)
	if inf.verbose != nil {
		inf.emitDistribute(n, sync)
	}
	inf.processor.Distribute(n, sync)
}

func (inf *Informer) emitDistribute(n any, sync bool) {
	ev := instr.Event{Type: pipeline.EventDistribute, Informer: inf.name}
	switch n := n.(type) {
	case processor.AddNotification:
		ev.Detail, ev.Obj = pipeline.CallbackAdd, n.Obj
	case processor.UpdateNotification:
		ev.Detail, ev.Obj = pipeline.CallbackUpdate, n.New
		if sync {
			ev.Detail += " (sync)"
		}
	case processor.DeleteNotification:
		ev.Detail, ev.Obj = pipeline.CallbackDelete, n.Obj
	}
	inf.verbose.Emit(ev)
}

func sameResourceVersion(a, b any) bool {
	oa, err := meta.Accessor(a)
	if err != nil {
		return false
	}
	ob, err := meta.Accessor(b)
	if err != nil {
		return false
	}
	return oa.GetResourceVersion() == ob.GetResourceVersion()
}

func (inf *Informer) emitPop(deltas cache.Deltas) {
	if inf.verbose == nil || len(deltas) == 0 {
		return
	}
	last := deltas[len(deltas)-1]
	ev := instr.Event{Type: pipeline.EventPop, Informer: inf.name, Count: len(deltas), Obj: last.Object, Detail: string(last.Type)}
	switch info := last.Object.(type) {
	case cache.ReplacedAllInfo, cache.SyncAllInfo, cache.BookmarkInfo:
		ev.Obj, ev.Key = nil, deltaKey(cache.Delta{Object: info})
	}
	if len(deltas) > 1 {
		ev.Detail = deltaTypes(deltas)
	}
	inf.verbose.Emit(ev)
}

// deltaTypes lists the types of a key's coalesced deltas, shortened when long.
func deltaTypes(deltas cache.Deltas) string {
	var b strings.Builder
	for i, d := range deltas {
		if i == 8 {
			fmt.Fprintf(&b, ",…(%d)", len(deltas))
			break
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(string(d.Type))
	}
	return b.String()
}
