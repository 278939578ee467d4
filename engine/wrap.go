package engine

import (
	"errors"

	"k8s.io/client-go/tools/cache"
)

// WrapListerWatcher puts wrap around the ListerWatcher the informer was
// built with, beneath the instrumentation: what wrap's result returns is
// exactly what the reflector receives. A recorder uses it to tee the
// stream of an informer that someone else built (the demo, a cluster).
// It must be called before Run.
func (inf *Informer) WrapListerWatcher(wrap func(cache.ListerWatcher) cache.ListerWatcher) error {
	inf.startedMu.Lock()
	defer inf.startedMu.Unlock()
	if inf.started {
		return errors.New("informer " + inf.name + " has already started; wrap its ListerWatcher before Run")
	}
	if inf.observer == nil {
		inf.lw = wrap(inf.lw)
		return nil
	}
	inf.observer.Wrap(wrap)
	return nil
}
