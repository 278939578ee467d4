package local

import (
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/informtop/informtop/agent/shared/waitfor"
	"github.com/informtop/informtop/demo/cluster"
)

// TestObserveCallsAndCost: an observer hears every callback of every
// simulated listener, those added later too, with how long it took; a
// listener given a Cost takes that long instead of its Delay.
func TestObserveCallsAndCost(t *testing.T) {
	s, c := newPods(t, 2)
	var mu sync.Mutex
	took := map[string][]time.Duration{}
	s.ObserveCalls(func(informer, listener string, call Call, d time.Duration) {
		mu.Lock()
		defer mu.Unlock()
		took[informer+"/"+listener+" "+call.Callback] = append(took[informer+"/"+listener+" "+call.Callback], d)
	})
	costs := []time.Duration{30 * time.Millisecond}
	if _, err := s.AddListener("pods", ListenerSpec{Name: "replayed", Delay: time.Hour, Cost: func() time.Duration {
		if len(costs) == 0 {
			return 0
		}
		d := costs[0]
		costs = costs[1:]
		return d
	}}); err != nil {
		t.Fatal(err)
	}
	run(t, s)
	if _, err := c.Update(cluster.Pods, c.Keys(cluster.Pods)[0]); err != nil {
		t.Fatal(err)
	}
	waitfor.Seen(t, "both listeners' OnUpdate", func() (bool, string) {
		mu.Lock()
		defer mu.Unlock()
		n := len(took["pods/replayed OnUpdate"]) + len(took["pods/slow OnUpdate"])
		return n == 2, fmt.Sprintf("callbacks heard: %v", took)
	})
	mu.Lock()
	defer mu.Unlock()
	adds := took["pods/replayed OnAdd"]
	if len(adds) != 2 || adds[0] < 30*time.Millisecond || adds[1] > time.Second || len(took["pods/slow OnAdd"]) != 2 {
		t.Errorf("callbacks heard: %v; want replayed's first OnAdd to take the 30ms its Cost gave, not its hour-long Delay", took)
	}
}
