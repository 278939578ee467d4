package engine

import (
	"errors"
	"time"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/engine/processor"
)

// minimumResyncPeriod is client-go's floor for a handler's resync period.
const minimumResyncPeriod = time.Second

// AddEventHandler registers handler with the informer's default resync period.
func (inf *Informer) AddEventHandler(handler cache.ResourceEventHandler) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{})
}

// AddEventHandlerWithResyncPeriod registers handler with its own resync period.
func (inf *Informer) AddEventHandlerWithResyncPeriod(handler cache.ResourceEventHandler, resyncPeriod time.Duration) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddEventHandlerWithOptions(handler, cache.HandlerOptions{ResyncPeriod: &resyncPeriod})
}

// AddEventHandlerWithOptions registers handler; the listener is named after
// the handler's type or functions.
func (inf *Informer) AddEventHandlerWithOptions(handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	return inf.AddNamedEventHandler("", handler, options)
}

// AddNamedEventHandler registers handler under a name shown in the UI. A
// handler added after the informer started first receives OnAdd(obj, true)
// for every cached object, before any later notification.
func (inf *Informer) AddNamedEventHandler(name string, handler cache.ResourceEventHandler, options cache.HandlerOptions) (cache.ResourceEventHandlerRegistration, error) {
	if handler == nil {
		return nil, errors.New("handler was not added to informer " + inf.name + ": it is nil; pass a cache.ResourceEventHandler")
	}
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.stopped {
		return nil, errors.New("handler was not added: informer " + inf.name + " has stopped")
	}

	requested := inf.defaultHandlerResync
	if options.ResyncPeriod != nil {
		requested = *options.ResyncPeriod
	}
	resync := requested
	if resync > 0 {
		if resync < minimumResyncPeriod {
			resync = minimumResyncPeriod
		}
		if resync < inf.resyncCheckPeriod {
			if inf.started {
				// Too late to make the reflector check more often.
				resync = inf.resyncCheckPeriod
			} else {
				inf.resyncCheckPeriod = resync
				inf.processor.ResyncCheckPeriodChanged(resync)
			}
		}
	}

	l := inf.processor.NewListener(processor.ListenerConfig{
		Name:            name,
		Handler:         handler,
		RequestedResync: resync,
		Resync:          processor.EffectiveResync(resync, inf.resyncCheckPeriod),
		UpstreamSynced:  inf.HasSyncedChecker(),
	})
	if !inf.started {
		inf.processor.AddListener(l, nil)
		return l, nil
	}

	// Joining a running informer: hold deltas back while the listener is
	// handed the cache, so it neither misses nor repeats a notification.
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	inf.processor.AddListener(l, inf.indexer.List())
	return l, nil
}

// RemoveEventHandler unregisters a handler and drops its backlog. Removing
// the same registration twice is not an error.
func (inf *Informer) RemoveEventHandler(handle cache.ResourceEventHandlerRegistration) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	inf.blockDeltas.Lock()
	defer inf.blockDeltas.Unlock()
	return inf.processor.RemoveListener(handle)
}
