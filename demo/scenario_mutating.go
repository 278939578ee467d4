package demo

import (
	"time"

	"github.com/informtop/informtop/demo/cluster"
	"github.com/informtop/informtop/source/local"
)

var mutatingHandlerScenario = &scenario{
	name:    "mutating-handler",
	summary: "One handler changes the cached objects it receives instead of a DeepCopy: every handler and the store see it, and the detector names the handler and the fields.",
	objects: 50,
	rate:    defaultRate,
	build:   buildMutating,
}

// labeler is the listener with the bug.
const labeler = "labeler"

// The script makes the labeler's one write with nobody else handling the
// pod at the time: it holds the labeler inside a callback on another pod,
// changes the target, waits until fast and medium are done with it, then
// arms and releases the labeler. That is also what keeps the write from
// racing with the other listeners' reads (the bug is a data race too), and
// why background changes pause meanwhile and the informer's memory
// sampling, which reads cached objects, is off.
func buildMutating(cfg resolved) plan {
	p := podsOnly(cfg, []listenerPlan{
		{name: "fast", delay: fastDelay},
		{name: "medium", delay: mediumDelay},
		{name: labeler, delay: mediumDelay},
	})
	p.informers[0].noUpkeep = true
	p.status = listenersStatus
	p.script = []step{
		{name: "intro", until: registrationsSynced, tellList: true,
			do:   do(func(d *Demo) { d.work.hold() }),
			then: func(d *Demo) bool { return d.work.held() }, note: []string{
				"Mutating handler: three listeners share one informer. labeler has the classic bug: it will set a label on the pod it receives, not on a DeepCopy.",
				"Background changes are paused, so each change is one you can follow.",
			}},
		{name: "hold labeler", after: 3 * time.Second, until: drained,
			do: do(func(d *Demo) {
				d.stall("pods", labeler, true)
				d.touch(0, false)
			}),
			then: func(d *Demo) bool { return inCallback(d, "pods", labeler) }},
		{name: "change", do: do(func(d *Demo) { d.touch(1, true) }), then: othersHandledTarget},
		{name: "mutate",
			do: do(func(d *Demo) {
				if l := d.Listener("pods", labeler); l != nil {
					l.MutateNext(d.mutatedKey())
				}
				d.stall("pods", labeler, false)
			}),
			then: labelerCharged, note: []string{
				"labeler's handler set the label touched=yes on the pod it was given: the informer's cached object, not a DeepCopy. The Store view (4) now shows a label the API server never had.",
				"With attribution on, each callback's object is copied before the handler and compared after. No other listener was handling that pod meanwhile, so the detector names labeler and the field: metadata.labels.touched \"\" → \"yes\" (Listeners view 3, MUT; Events: CacheMutation).",
			}},
		{name: "next version", after: 5 * time.Second,
			do:   do(func(d *Demo) { d.touch(1, false) }),
			then: othersSawMutation, note: []string{
				"The pod's next change reached every listener as OnUpdate(old, new), and fast and medium found touched=yes on the old object: a write to a cached object is every handler's and every lister's.",
				"The server's new version has no such label, so the store lost it again: the change was never real. Handlers must DeepCopy an object before changing it, and change the cluster only through the API server.",
			}},
		{name: "lesson", after: 10 * time.Second,
			do:   do(func(d *Demo) { d.work.release() }),
			then: func(d *Demo) bool { return !d.work.held() }, note: []string{
				"Objects from an informer are read-only. In tests, KUBE_CACHE_MUTATION_DETECTOR=true makes client-go and informtop's engine panic when a cached object changes; informtop's attribution names the handler and the fields instead. Background changes resume.",
			}},
	}
	return p
}

// touch updates the i-th pod in key order on the server; target records it
// as the pod the labeler is to change.
func (d *Demo) touch(i int, target bool) {
	keys := d.cluster.Keys(cluster.Pods)
	if i >= len(keys) {
		d.Log("scenario: no pod to change")
		return
	}
	obj, err := d.cluster.Update(cluster.Pods, keys[i])
	if err != nil {
		d.Log("scenario: " + err.Error())
		return
	}
	_, rv := local.KeyAndVersion(obj)
	d.mu.Lock()
	defer d.mu.Unlock()
	if target {
		d.facts.mutatedKey, d.facts.mutatedRV = keys[i], rv
	} else if keys[i] == d.facts.mutatedKey {
		d.facts.nextRV = rv
	}
}

func (d *Demo) mutatedKey() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.facts.mutatedKey
}

func (d *Demo) mutationFacts() (key, rv, nextRV string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.facts.mutatedKey, d.facts.mutatedRV, d.facts.nextRV
}

// othersHandledTarget: fast and medium have finished the target's new
// version (their callbacks, the attribution check included, have returned).
func othersHandledTarget(d *Demo) bool {
	key, rv, _ := d.mutationFacts()
	return othersAt(d, key, rv)
}

func othersAt(d *Demo, key, rv string) bool {
	inf := d.Informer("pods")
	if inf == nil || key == "" {
		return false
	}
	stats := inf.State().Listeners
	for _, name := range []string{"fast", "medium"} {
		l := d.Listener("pods", name)
		if l == nil || l.View()[key] != rv {
			return false
		}
		for _, ls := range stats {
			if ls.Name == name && (ls.Pending != 0 || ls.InCallback != "") {
				return false
			}
		}
	}
	return true
}

// labelerCharged: the engine has charged labeler with a change to a cached object.
func labelerCharged(d *Demo) bool {
	inf := d.Informer("pods")
	if inf == nil {
		return false
	}
	for _, ls := range inf.State().Listeners {
		if ls.Name == labeler {
			return ls.CacheMutations > 0
		}
	}
	return false
}

// othersSawMutation: fast and medium have handled the pod's next version
// and found the label on its old object.
func othersSawMutation(d *Demo) bool {
	key, _, next := d.mutationFacts()
	if next == "" || !othersAt(d, key, next) {
		return false
	}
	for _, name := range []string{"fast", "medium"} {
		if d.Listener("pods", name).Counts().SawMutated == 0 {
			return false
		}
	}
	return true
}
