package replay

import (
	"fmt"
	"testing"

	"github.com/informtop/informtop/agent/source"
)

// Where the one notification of a movingItem pipeline is.
const (
	atReflector  = iota // taken by the reflector, not queued yet
	atQueue             // queued
	atProcessing        // popped, being processed: in no queue, no listener
	atBacklog           // handed to the listener, waiting
	atCallback          // the listener's callback runs
	atDone              // the callback returned
)

var stageNames = []string{"taken by the reflector", "queued", "popped and being processed", "in a listener's backlog", "in a listener's callback", "done"}

// movingItem is an informer's pipeline with one notification on its way
// through, which moves one stage on after the reads the schedule says:
// bit i set moves it after the i-th read. It plays every interleaving of
// pipelineIdle's reads with the informer's own goroutines, deterministically.
type movingItem struct {
	stage    int
	schedule uint
	reads    int
}

func (m *movingItem) read() {
	if m.schedule&(1<<m.reads) != 0 && m.stage < atDone {
		m.stage++
	}
	m.reads++
}

func (m *movingItem) HasSynced() bool {
	defer m.read()
	return true
}

func (m *movingItem) LastSyncResourceVersion() string {
	defer m.read()
	if m.stage == atReflector {
		return "1"
	}
	return "2" // the reflector queues an item, then moves on to its resourceVersion
}

func (m *movingItem) Drained() bool {
	defer m.read()
	return m.stage != atQueue && m.stage != atProcessing
}

func (m *movingItem) State() source.Informer {
	defer m.read()
	l := source.Listener{Name: "l"}
	if m.stage == atBacklog {
		l.Pending = 1
	}
	if m.stage == atCallback {
		l.InCallback = source.CallbackUpdate
	}
	return source.Informer{Listeners: []source.Listener{l}}
}

// TestIdleNeverMissesANotificationOnItsWay: whatever the notification does
// while pipelineIdle looks, pipelineIdle says idle only once it is done —
// not while it is popped and being processed (the queue is empty and no
// listener has it yet), nor when it moves from the queue to a listener
// between two reads. Either made a replay settle with a relist's callbacks
// still to come.
func TestIdleNeverMissesANotificationOnItsWay(t *testing.T) {
	for start := atReflector; start <= atDone; start++ {
		for schedule := range uint(1 << 6) {
			m := &movingItem{stage: start, schedule: schedule}
			idle := pipelineIdle(m, true, "2", true)
			if idle && m.stage != atDone {
				t.Errorf("idle while the notification was %s (it was %s when pipelineIdle began; moves after reads %06b)", stageNames[m.stage], stageNames[start], schedule)
			}
			if !idle && start == atDone {
				t.Errorf("not idle with nothing on its way (%s)", fmt.Sprint(m.reads))
			}
		}
	}
}
