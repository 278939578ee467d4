package sourcetest

import (
	"errors"
	"fmt"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
)

// RateStep is how much one AdjustRate step changes the rate, in changes
// per second.
const RateStep = 10

// ErrNotPaused is what Step answers while processing runs.
var ErrNotPaused = errors.New("processing is not paused: step needs a pause first")

// Controller is a fake of every capability: it records each control call in
// order (Calls) and each queue read (QueueReads), and answers from state
// the test sets. The zero Controller is ready to use: running, no stalls,
// rate 0, nothing queued.
//
// When a failure is set, every control returns it: SetPaused then changes
// nothing; Step, ToggleStall and AdjustRate still answer their result.
type Controller struct {
	mu      sync.Mutex
	calls   []string
	reads   []string
	paused  bool
	stalled map[string]bool // by "informer/listener"
	step    source.StepResult
	rate    float64
	fail    error
	queued  map[string]map[string]cache.Deltas // informer -> key -> deltas
	by      source.Pauser
	batch   source.StepResult
	rows    map[string][]source.QueueItem // informer -> whole queue
	backlog map[string][]source.Pending   // "informer/listener" -> backlog
	// knows, when set, says whether an informer exists: controls refuse
	// others as a real source does. nil knows every name.
	knows func(informer string) bool
}

// unknown is the refusal of a control for an informer the source lacks;
// nil when it has it. c.mu is held.
func (c *Controller) unknown(informer string) error {
	if c.knows == nil || c.knows(informer) {
		return nil
	}
	return fmt.Errorf("there is no informer %q", informer)
}

var (
	_ source.Processing     = (*Controller)(nil)
	_ source.Stalling       = (*Controller)(nil)
	_ source.Faults         = (*Controller)(nil)
	_ source.Workload       = (*Controller)(nil)
	_ source.QueueReader    = (*Controller)(nil)
	_ source.QueuePager     = (*Controller)(nil)
	_ source.ListenerReader = (*Controller)(nil)
)

// record appends a call; c.mu is held.
func (c *Controller) record(format string, args ...any) {
	c.calls = append(c.calls, fmt.Sprintf(format, args...))
}

// Calls returns the control calls so far, oldest first: "SetPaused(true)",
// "Step(pods)", "StepBatch(pods)", "Resync(pods)", "ToggleStall(pods,audit)", "DropWatch",
// "ExpireHistory", "AdjustRate(-1)". Paused and QueueDeltas are reads and
// are not recorded here.
func (c *Controller) Calls() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.calls...)
}

// QueueReads returns the QueueDeltas calls so far as "informer key".
func (c *Controller) QueueReads() []string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]string(nil), c.reads...)
}

// SetStepResult is what Step answers from now on.
func (c *Controller) SetStepResult(res source.StepResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.step = res
}

// SetFailure makes every control return err from now on; nil ends it.
func (c *Controller) SetFailure(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.fail = err
}

// SetPausedState sets the pause state without recording a call, as if
// something else (a scenario's script) had paused processing: PausedBy
// then reports source.PausedByScenario.
func (c *Controller) SetPausedState(paused bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.paused, c.by = paused, ""
	if paused {
		c.by = source.PausedByScenario
	}
}

// PausedBy says who paused: source.PausedByYou after SetPaused(true),
// source.PausedByScenario after SetPausedState(true), "" while running.
func (c *Controller) PausedBy() source.Pauser {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.paused {
		return ""
	}
	return c.by
}

// SetBatchResult is what StepBatch answers from now on.
func (c *Controller) SetBatchResult(res source.StepResult) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.batch = res
}

// SetQueueRows makes rows the whole queue of informer that QueueRows pages
// through; the Controller keeps the slice.
func (c *Controller) SetQueueRows(informer string, rows []source.QueueItem) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.rows == nil {
		c.rows = map[string][]source.QueueItem{}
	}
	c.rows[informer] = rows
}

// SetBacklog makes pending what ListenerBacklog answers for a listener,
// oldest first; the Controller keeps the slice.
func (c *Controller) SetBacklog(informer, listener string, pending []source.Pending) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.backlog == nil {
		c.backlog = map[string][]source.Pending{}
	}
	c.backlog[informer+"/"+listener] = pending
}

// SetStalled sets a listener's stall state without recording a call.
func (c *Controller) SetStalled(informer, listener string, stalled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.stalled == nil {
		c.stalled = map[string]bool{}
	}
	c.stalled[informer+"/"+listener] = stalled
}

// Stalled reports a listener's stall state.
func (c *Controller) Stalled(informer, listener string) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.stalled[informer+"/"+listener]
}

// SetRate sets the workload rate without recording a call.
func (c *Controller) SetRate(perSecond float64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.rate = perSecond
}

// Rate is the workload rate in changes per second.
func (c *Controller) Rate() float64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.rate
}

// SetQueued is what QueueDeltas answers for informer and key from now on
// (key "" for the keyless items); nil deltas: nothing queued.
func (c *Controller) SetQueued(informer, key string, deltas cache.Deltas) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if deltas == nil {
		delete(c.queued[informer], key)
		return
	}
	if c.queued == nil {
		c.queued = map[string]map[string]cache.Deltas{}
	}
	if c.queued[informer] == nil {
		c.queued[informer] = map[string]cache.Deltas{}
	}
	c.queued[informer][key] = append(cache.Deltas(nil), deltas...)
}

// SetPaused implements source.Processing.
func (c *Controller) SetPaused(paused bool) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("SetPaused(%v)", paused)
	if c.fail != nil {
		return c.fail
	}
	c.paused, c.by = paused, ""
	if paused {
		c.by = source.PausedByYou
	}
	return nil
}

// Paused implements source.Processing.
func (c *Controller) Paused() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.paused
}

// Step implements source.Processing: ErrNotPaused while running, else the
// step result set and the failure, if any.
func (c *Controller) Step(informer string) (source.StepResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("Step(%s)", informer)
	if err := c.unknown(informer); err != nil {
		return source.StepResult{}, err
	}
	if !c.paused {
		return source.StepResult{}, ErrNotPaused
	}
	return c.step, c.fail
}

// StepBatch implements source.Processing: ErrNotPaused while running,
// else the batch result set and the failure, if any.
func (c *Controller) StepBatch(informer string) (source.StepResult, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("StepBatch(%s)", informer)
	if err := c.unknown(informer); err != nil {
		return source.StepResult{}, err
	}
	if !c.paused {
		return source.StepResult{}, ErrNotPaused
	}
	return c.batch, c.fail
}

// Resync implements source.Processing.
func (c *Controller) Resync(informer string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("Resync(%s)", informer)
	if err := c.unknown(informer); err != nil {
		return err
	}
	return c.fail
}

// ToggleStall implements source.Stalling: it flips the listener's stall
// state and reports the new one.
func (c *Controller) ToggleStall(informer, listener string) (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("ToggleStall(%s,%s)", informer, listener)
	if err := c.unknown(informer); err != nil {
		return false, err
	}
	if c.stalled == nil {
		c.stalled = map[string]bool{}
	}
	id := informer + "/" + listener
	c.stalled[id] = !c.stalled[id]
	return c.stalled[id], c.fail
}

// DropWatch implements source.Faults.
func (c *Controller) DropWatch() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("DropWatch")
	return c.fail
}

// ExpireHistory implements source.Faults.
func (c *Controller) ExpireHistory() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("ExpireHistory")
	return c.fail
}

// AdjustRate implements source.Workload: each step moves the rate by
// RateStep.
func (c *Controller) AdjustRate(step int) (float64, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.record("AdjustRate(%d)", step)
	c.rate += float64(step) * RateStep
	return c.rate, c.fail
}

// QueueDeltas implements source.QueueReader: a copy of what SetQueued set.
func (c *Controller) QueueDeltas(informer, key string) cache.Deltas {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.reads = append(c.reads, informer+" "+key)
	return append(cache.Deltas(nil), c.queued[informer][key]...)
}

// QueueRows implements source.QueuePager: a copy of at most max rows from
// offset of what SetQueueRows set, and their total.
func (c *Controller) QueueRows(informer string, offset, max int) ([]source.QueueItem, int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	rows := c.rows[informer]
	offset = min(max0(offset), len(rows))
	end := min(offset+max0(max), len(rows))
	return append([]source.QueueItem(nil), rows[offset:end]...), len(rows)
}

// ListenerBacklog implements source.ListenerReader: a copy of at most max
// of what SetBacklog set.
func (c *Controller) ListenerBacklog(informer, listener string, max int) []source.Pending {
	c.mu.Lock()
	defer c.mu.Unlock()
	p := c.backlog[informer+"/"+listener]
	return append([]source.Pending(nil), p[:min(max0(max), len(p))]...)
}

func max0(n int) int { return max(n, 0) }
