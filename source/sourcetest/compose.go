package sourcetest

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/source"
	"github.com/informtop/informtop/verify"
)

// Cluster is a Fake with the capabilities of informers running in
// informtop over a real cluster: Processing, Stalling, QueueReader, QueuePager and ListenerReader,
// answered by Controls. It has no Faults and no Workload.
type Cluster struct {
	*Fake
	Controls *Controls
}

var (
	_ source.Processing     = (*Cluster)(nil)
	_ source.Stalling       = (*Cluster)(nil)
	_ source.QueueReader    = (*Cluster)(nil)
	_ source.QueuePager     = (*Cluster)(nil)
	_ source.ListenerReader = (*Cluster)(nil)
)

// NewCluster returns f with c's processing, stalling and queue reading;
// nil c gets new Controls. f's frames report c's pause state.
func NewCluster(f *Fake, c *Controls) *Cluster {
	if c == nil {
		c = &Controls{}
	}
	f.ReportPaused(c)
	return &Cluster{Fake: f, Controls: c}
}

// SetPaused implements source.Processing.
func (s *Cluster) SetPaused(paused bool) error { return s.Controls.SetPaused(paused) }

// Paused implements source.Processing.
func (s *Cluster) Paused() bool { return s.Controls.Paused() }

// Step implements source.Processing.
func (s *Cluster) Step(informer string) (source.StepResult, error) { return s.Controls.Step(informer) }

// StepBatch implements source.Processing.
func (s *Cluster) StepBatch(informer string) (source.StepResult, error) {
	return s.Controls.StepBatch(informer)
}

// Resync implements source.Processing.
func (s *Cluster) Resync(informer string) error { return s.Controls.Resync(informer) }

// ToggleStall implements source.Stalling.
func (s *Cluster) ToggleStall(informer, listener string) (bool, error) {
	return s.Controls.ToggleStall(informer, listener)
}

// QueueDeltas implements source.QueueReader.
func (s *Cluster) QueueDeltas(informer, key string) cache.Deltas {
	return s.Controls.QueueDeltas(informer, key)
}

// QueueRows implements source.QueuePager.
func (s *Cluster) QueueRows(informer string, offset, max int) ([]source.QueueItem, int) {
	return s.Controls.QueueRows(informer, offset, max)
}

// ListenerBacklog implements source.ListenerReader.
func (s *Cluster) ListenerBacklog(informer, listener string, max int) []source.Pending {
	return s.Controls.ListenerBacklog(informer, listener, max)
}

// Demo is a Fake with every capability, like the embedded demo, answered
// by its embedded Controls.
type Demo struct {
	*Fake
	*Controls
}

var (
	_ source.Processing     = (*Demo)(nil)
	_ source.Stalling       = (*Demo)(nil)
	_ source.Faults         = (*Demo)(nil)
	_ source.Workload       = (*Demo)(nil)
	_ source.QueueReader    = (*Demo)(nil)
	_ source.QueuePager     = (*Demo)(nil)
	_ source.ListenerReader = (*Demo)(nil)
)

// NewDemo returns f with every capability of c; nil c gets new Controls.
// f's frames report c's pause state.
func NewDemo(f *Fake, c *Controls) *Demo {
	if c == nil {
		c = &Controls{}
	}
	f.ReportPaused(c)
	return &Demo{Fake: f, Controls: c}
}

// Verifying is a Cluster that can also verify its caches, answering every
// Verify with the result set by SetVerify and recording the informer asked.
type Verifying struct {
	*Cluster
	mu    sync.Mutex
	res   verify.Result
	err   error
	asked []string
}

var _ source.Verifier = (*Verifying)(nil)

// NewVerifying adds verification to c.
func NewVerifying(c *Cluster) *Verifying { return &Verifying{Cluster: c} }

// SetVerify sets what Verify answers.
func (v *Verifying) SetVerify(res verify.Result, err error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.res, v.err = res, err
}

// Asked lists the informers Verify was asked about, in order.
func (v *Verifying) Asked() []string {
	v.mu.Lock()
	defer v.mu.Unlock()
	return append([]string(nil), v.asked...)
}

// Verify implements source.Verifier.
func (v *Verifying) Verify(_ context.Context, informer string) (verify.Result, error) {
	v.mu.Lock()
	defer v.mu.Unlock()
	v.asked = append(v.asked, informer)
	return v.res, v.err
}
