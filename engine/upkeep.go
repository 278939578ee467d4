package engine

import (
	"context"
	"time"
)

// upkeepEvery is how often an informer dates its watch events and its
// listeners' queued notifications and considers a memory sample: the
// resolution of "last event" and "oldest pending" ages.
const upkeepEvery = time.Second

// upkeep runs the informer's periodic bookkeeping until ctx is done, on a
// goroutine of its own so no reader (the UI, a scrape) pays for it.
func (inf *Informer) upkeep(ctx context.Context) {
	t := time.NewTicker(upkeepEvery)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case now := <-t.C:
			inf.upkeepOnce(now)
		}
	}
}

func (inf *Informer) upkeepOnce(now time.Time) {
	if inf.observer != nil {
		inf.observer.Upkeep(now)
	}
	inf.processor.Checkpoint(now)
	inf.sampleMemory(now)
}
