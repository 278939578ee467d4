package indexer

import (
	"k8s.io/client-go/tools/cache"
)

// keyedTxn is a transaction whose key has been computed.
type keyedTxn struct {
	key string
	cache.Transaction
}

// Transaction applies txns in order under a single write lock, so that a
// batch popped from a RealFIFO costs one lock round-trip and readers never
// see half of it. Operations whose object has no key are skipped and
// reported in the returned error; the others are applied regardless. The
// resourceVersion of the last operation that has a key (if its object has
// metadata) becomes the store's last seen one, as in client-go, even when
// that operation's type is unknown and it is ignored. It returns nil when
// every operation had a key.
func (i *Indexer) Transaction(txns ...cache.Transaction) *cache.TransactionError {
	batch := make([]keyedTxn, 0, len(txns))
	applied := make([]int, 0, len(txns))
	var errs []error
	for n, txn := range txns {
		key, err := i.keyFunc(txn.Object)
		if err != nil {
			errs = append(errs, cache.KeyError{Obj: txn.Object, Err: err})
			continue
		}
		batch = append(batch, keyedTxn{key: key, Transaction: txn})
		applied = append(applied, n)
	}
	if len(batch) > 0 {
		i.applyBatch(batch)
	}
	if len(errs) > 0 {
		return &cache.TransactionError{
			SuccessfulIndices: applied,
			TotalTransactions: len(txns),
			Errors:            errs,
		}
	}
	return nil
}

// applyBatch applies a non-empty batch under one write lock. Unknown
// transaction types are ignored, as client-go does.
func (i *Indexer) applyBatch(batch []keyedTxn) {
	rv, hasRV := resourceVersionOf(batch[len(batch)-1].Object)
	i.mu.Lock()
	defer i.mu.Unlock() // deferred: an index function may panic
	for _, t := range batch {
		switch t.Type {
		case cache.TransactionTypeAdd:
			i.putLocked(t.key, t.Object)
			i.adds.Add(1)
		case cache.TransactionTypeUpdate:
			i.putLocked(t.key, t.Object)
			i.updates.Add(1)
		case cache.TransactionTypeDelete:
			i.deleteLocked(t.key)
			i.deletes.Add(1)
		}
	}
	if hasRV {
		i.setRVLocked(rv)
	}
	i.gen.Add(1)
}
