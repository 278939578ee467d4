// Package engine wires informtop's instrumented informer: client-go's own
// reflector feeding our queue (package fifo), indexer and shared processor.
// Informer satisfies cache.SharedIndexInformer, so it drops into existing
// controllers, including through a generated informer factory's InformerFor.
//
// Each popped queue item updates the indexer before any handler hears of
// it. Instrumentation (Snapshot, the Event ring) is read without stopping
// the pipeline and never blocks it. An informer runs as a tree of
// goroutines under the context given to Run; when Run returns, all of them
// have ended. Lock order: the informer's lifecycle lock and the queue's
// lock come before the lock held while a popped item is applied, which
// comes before the indexer's and the processor's (see Informer).
package engine
