package sourcetest

import (
	"context"
	"sync"

	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/agent/verify"
)

// Cluster is a Fake with the capabilities of informers running in
// informtop over a real cluster: Processing, Stalling, QueueReader, QueuePager and ListenerReader,
// answered by Controller. It has no Faults and no Workload.
type Cluster struct {
	*Fake
	Ctl *Controller
}

var _ source.Source = (*Cluster)(nil)

// Controls implements source.Source: processing, stalling and queue and
// backlog reads, as a cluster source has.
func (s *Cluster) Controls() source.Controls {
	return source.Controls{Processing: s, Stalling: s, Queue: s, QueuePager: s, Backlog: s}
}

// NewCluster returns f with c's processing, stalling and queue reading;
// nil c gets new Controller. f's frames report c's pause state.
func NewCluster(f *Fake, c *Controller) *Cluster {
	if c == nil {
		c = &Controller{}
	}
	f.ReportPaused(c)
	c.knowInformersOf(f)
	return &Cluster{Fake: f, Ctl: c}
}

// SetPaused implements source.Processing.
func (s *Cluster) SetPaused(paused bool) error { return s.Ctl.SetPaused(paused) }

// Paused implements source.Processing.
func (s *Cluster) Paused() bool { return s.Ctl.Paused() }

// Step implements source.Processing.
func (s *Cluster) Step(informer string) (source.StepResult, error) { return s.Ctl.Step(informer) }

// StepBatch implements source.Processing.
func (s *Cluster) StepBatch(informer string) (source.StepResult, error) {
	return s.Ctl.StepBatch(informer)
}

// Resync implements source.Processing.
func (s *Cluster) Resync(informer string) error { return s.Ctl.Resync(informer) }

// ToggleStall implements source.Stalling.
func (s *Cluster) ToggleStall(informer, listener string) (bool, error) {
	return s.Ctl.ToggleStall(informer, listener)
}

// QueueDeltas implements source.QueueReader.
func (s *Cluster) QueueDeltas(informer, key string) cache.Deltas {
	return s.Ctl.QueueDeltas(informer, key)
}

// QueueRows implements source.QueuePager.
func (s *Cluster) QueueRows(informer string, offset, max int) ([]source.QueueItem, int) {
	return s.Ctl.QueueRows(informer, offset, max)
}

// ListenerBacklog implements source.ListenerReader.
func (s *Cluster) ListenerBacklog(informer, listener string, max int) []source.Pending {
	return s.Ctl.ListenerBacklog(informer, listener, max)
}

// Demo is a Fake with every capability, like the embedded demo, answered
// by its embedded Controller.
type Demo struct {
	*Fake
	*Controller
}

var _ source.Source = (*Demo)(nil)

// Controls implements source.Source: every capability, as the demo has.
func (d *Demo) Controls() source.Controls {
	c := d.Controller
	return source.Controls{Processing: c, Stalling: c, Faults: c, Workload: c, Queue: c, QueuePager: c, Backlog: c}
}

// NewDemo returns f with every capability of c; nil c gets new Controller.
// f's frames report c's pause state.
func NewDemo(f *Fake, c *Controller) *Demo {
	if c == nil {
		c = &Controller{}
	}
	f.ReportPaused(c)
	c.knowInformersOf(f)
	return &Demo{Fake: f, Controller: c}
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

var _ source.Source = (*Verifying)(nil)

// Controls implements source.Source: a cluster's, and verify.
func (v *Verifying) Controls() source.Controls {
	c := v.Cluster.Controls()
	c.Verifier = v
	return c
}

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

// knowInformersOf makes c refuse informers f's current frame lacks.
func (c *Controller) knowInformersOf(f *Fake) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.knows = f.has
}
