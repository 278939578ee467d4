package tui

import (
	"context"
	"path/filepath"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"github.com/informtop/informtop/agent/instr"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/engine"
	"github.com/informtop/informtop/source/local"
)

// BenchmarkEngineWithUI measures what the dashboard costs the engine: one
// informer LISTs 10k pods, then receives modify events, until a counting
// handler has seen every one; headless-ui runs the dashboard's tick beside
// it at 10 Hz (pull every snapshot and the new events, apply them, draw a
// 160×48 frame), no-ui does not. ns/event is the wall time per watch event,
// the LIST included; compare the two.
func BenchmarkEngineWithUI(b *testing.B) {
	const initial, events = 10_000, 300_000
	list := uiBenchPods(initial)
	for _, withUI := range []bool{false, true} {
		name := "no-ui"
		if withUI {
			name = "headless-ui"
		}
		b.Run(name, func(b *testing.B) {
			frames := 0
			var busy time.Duration // spent inside the UI's ticks
			for b.Loop() {
				lw := &uiBenchLW{list: list, ready: make(chan struct{})}
				src, inf := newLocalInformer(b, lw, source.RealFIFO)
				h := &uiBenchHandler{want: initial + events, done: make(chan struct{})}
				if _, err := inf.AddEventHandler(h); err != nil {
					b.Fatal(err)
				}
				ctx, cancel := context.WithCancel(context.Background())
				var wg sync.WaitGroup
				wg.Go(func() { inf.RunWithContext(ctx) })
				wg.Go(func() { lw.push(ctx, events) })
				var ui *headlessUI
				if withUI {
					// Building the model is a one-off at program start, not
					// part of the UI's running cost.
					b.StopTimer()
					ui = newHeadlessUI(b, src)
					b.StartTimer()
					wg.Go(func() { ui.run(ctx, 100*time.Millisecond) })
				}
				<-h.done
				b.StopTimer()
				cancel()
				wg.Wait()
				if ui != nil {
					frames += ui.frames
					busy += ui.busy
				}
				b.StartTimer()
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*events), "ns/event")
			if withUI {
				b.ReportMetric(float64(frames)/float64(b.N), "frames/op")
				b.ReportMetric(float64(busy.Microseconds())/float64(frames), "µs/frame")
			}
		})
	}
}

// headlessUI drives a Model the way the running program does on each tick,
// without a terminal. Its fields are owned by the goroutine calling run,
// and read by others only after run returned.
type headlessUI struct {
	m      *Model
	frames int           // ticks done
	busy   time.Duration // time spent in them
}

// newLocalInformer builds a pods informer over lw inside a local source,
// as informtop runs informers over a real cluster: its events go to the
// source's ring, whose size is the engine's default, as a lone informer's.
// The caller runs the informer; the source itself needs no Run.
func newLocalInformer(tb testing.TB, lw *uiBenchLW, queue source.QueueKind) (*local.Source, *engine.Informer) {
	src := local.New(local.Config{Kind: "bench", Title: "bench", EventRingSize: instr.DefaultRingSize})
	inf := engine.NewSharedIndexInformerWithOptions(lw, &corev1.Pod{}, engine.Options{
		Name: "pods", Resource: "pods", Queue: queue,
		Indexers:        cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
		Instrumentation: engine.Instrumentation{Events: src.Events()},
	})
	if _, err := src.AddInformer("pods", "pods", queue, inf); err != nil {
		tb.Fatal(err)
	}
	return src, inf
}

func newHeadlessUI(b *testing.B, src source.Source) *headlessUI {
	m, err := New(src, Options{KeyMapPath: filepath.Join(b.TempDir(), "absent.yaml")})
	if err != nil {
		b.Fatal(err)
	}
	// The benchmark is the clock: the model's own tick command returns at
	// once instead of sleeping.
	closed := make(chan struct{})
	close(closed)
	m.done = closed
	m.Update(tea.WindowSizeMsg{Width: 160, Height: 48})
	return &headlessUI{m: m}
}

// run ticks every period until ctx ends.
func (u *headlessUI) run(ctx context.Context, period time.Duration) {
	t := time.NewTicker(period)
	defer t.Stop()
	for {
		start := time.Now()
		u.tick()
		u.busy += time.Since(start)
		u.frames++
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
	}
}

// tick is one refresh: the tick message, the pull it asks for, the data
// applied (with whatever the focused view asks for next), one frame drawn.
func (u *headlessUI) tick() {
	pending := []tea.Msg{tickMsg{}}
	for len(pending) > 0 {
		msg := pending[0]
		pending = pending[1:]
		_, cmd := u.m.Update(msg)
		pending = append(pending, runCmd(cmd)...)
	}
	_ = u.m.View()
}

// runCmd runs cmd and its batches, dropping ticks (the caller is the clock).
func runCmd(cmd tea.Cmd) []tea.Msg {
	if cmd == nil {
		return nil
	}
	switch msg := cmd().(type) {
	case nil, tickMsg:
		return nil
	case tea.BatchMsg:
		var out []tea.Msg
		for _, c := range msg {
			out = append(out, runCmd(c)...)
		}
		return out
	default:
		return []tea.Msg{msg}
	}
}

func uiBenchPods(n int) *corev1.PodList {
	list := &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: strconv.Itoa(n)}}
	list.Items = make([]corev1.Pod, n)
	for i := range list.Items {
		p := &list.Items[i]
		p.Namespace = "ns-" + strconv.Itoa(i%20)
		p.Name = "pod-" + strconv.Itoa(i)
		p.ResourceVersion = strconv.Itoa(i + 1)
	}
	return list
}

// uiBenchLW lists a fixed PodList, then serves one watch fed by push.
type uiBenchLW struct {
	list  *corev1.PodList
	once  sync.Once
	watch *watch.FakeWatcher
	ready chan struct{}
}

// IsWatchListSemanticsUnSupported makes the reflector LIST then WATCH.
func (lw *uiBenchLW) IsWatchListSemanticsUnSupported() bool { return true }

func (lw *uiBenchLW) List(metav1.ListOptions) (runtime.Object, error) { return lw.list, nil }

func (lw *uiBenchLW) Watch(metav1.ListOptions) (watch.Interface, error) {
	lw.once.Do(func() {
		lw.watch = watch.NewFakeWithChanSize(1024, false)
		close(lw.ready)
	})
	return lw.watch, nil
}

// push modifies the listed pods in turn, each time with a newer
// resourceVersion, so every event reaches the handler as an update.
func (lw *uiBenchLW) push(ctx context.Context, events int) {
	select {
	case <-lw.ready:
	case <-ctx.Done():
		return
	}
	n := len(lw.list.Items)
	for i := range events {
		p := lw.list.Items[i%n] // a shallow copy is enough: only the version changes
		p.ResourceVersion = strconv.Itoa(n + i + 1)
		lw.watch.Modify(&p)
	}
}

// uiBenchHandler closes done once it has been called want times.
type uiBenchHandler struct {
	n    atomic.Int64
	want int64
	done chan struct{}
}

func (h *uiBenchHandler) hit() {
	if h.n.Add(1) == h.want {
		close(h.done)
	}
}
func (h *uiBenchHandler) OnAdd(any, bool)   { h.hit() }
func (h *uiBenchHandler) OnUpdate(_, _ any) { h.hit() }
func (h *uiBenchHandler) OnDelete(any)      {}

// BenchmarkUITick is one headless tick (pull, apply, draw) over a synced
// informer holding 10k pods: the work BenchmarkEngineWithUI adds ten times
// a second.
func BenchmarkUITick(b *testing.B) {
	lw := &uiBenchLW{list: uiBenchPods(10_000), ready: make(chan struct{})}
	src, inf := newLocalInformer(b, lw, source.RealFIFO)
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	defer func() {
		cancel()
		wg.Wait()
	}()
	wg.Go(func() { inf.RunWithContext(ctx) })
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		b.Fatal("informer never synced")
	}
	ui := newHeadlessUI(b, src)
	b.ReportAllocs()
	for b.Loop() {
		ui.tick()
	}
}
