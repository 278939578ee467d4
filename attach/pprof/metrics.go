package pprof

import (
	"io"
	"math"
	"slices"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/informtop/informtop/agent/source"
)

// The workqueue series client-go's workqueue.MetricsProvider registers
// (component-base's in Kubernetes' own components, controller-runtime's
// in a manager), each labelled with the queue's name.
const (
	mDepth          = "workqueue_depth"
	mAdds           = "workqueue_adds_total"
	mRetries        = "workqueue_retries_total"
	mUnfinished     = "workqueue_unfinished_work_seconds"
	mLongestRunning = "workqueue_longest_running_processor_seconds"
	mQueueDuration  = "workqueue_queue_duration_seconds"
	mWorkDuration   = "workqueue_work_duration_seconds"
)

// ParseWorkqueues reads a Prometheus text exposition and returns the
// workqueues its workqueue_* series describe, sorted by name; none when
// it has no such series. Means come from the histograms' sums and
// counts; the largest values are not in a histogram and stay zero.
func ParseWorkqueues(r io.Reader) ([]source.Workqueue, error) {
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(r)
	if err != nil {
		return nil, err
	}
	byName := map[string]*source.Workqueue{}
	queue := func(m *dto.Metric) *source.Workqueue {
		name := label(m, "name")
		if name == "" {
			return nil
		}
		q := byName[name]
		if q == nil {
			q = &source.Workqueue{Name: name}
			byName[name] = q
		}
		return q
	}
	each := func(family string, set func(q *source.Workqueue, m *dto.Metric)) {
		mf := families[family]
		if mf == nil {
			return
		}
		for _, m := range mf.GetMetric() {
			if q := queue(m); q != nil {
				set(q, m)
			}
		}
	}
	each(mDepth, func(q *source.Workqueue, m *dto.Metric) { q.Depth = int64(value(m)) })
	each(mAdds, func(q *source.Workqueue, m *dto.Metric) { q.Adds = uint64(value(m)) })
	each(mRetries, func(q *source.Workqueue, m *dto.Metric) { q.Retries = uint64(value(m)) })
	each(mUnfinished, func(q *source.Workqueue, m *dto.Metric) { q.UnfinishedWork = seconds(value(m)) })
	each(mLongestRunning, func(q *source.Workqueue, m *dto.Metric) { q.LongestRunning = seconds(value(m)) })
	each(mQueueDuration, func(q *source.Workqueue, m *dto.Metric) { q.QueueLatencyMean = mean(m) })
	each(mWorkDuration, func(q *source.Workqueue, m *dto.Metric) { q.WorkDurationMean = mean(m) })
	out := make([]source.Workqueue, 0, len(byName))
	for _, q := range byName {
		out = append(out, *q)
	}
	slices.SortFunc(out, func(a, b source.Workqueue) int { return strings.Compare(a.Name, b.Name) })
	return out, nil
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// value is a gauge's, counter's or untyped sample's value.
func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.GetGauge().GetValue()
	case m.Counter != nil:
		return m.GetCounter().GetValue()
	case m.Untyped != nil:
		return m.GetUntyped().GetValue()
	}
	return 0
}

func mean(m *dto.Metric) time.Duration {
	h := m.GetHistogram()
	if h == nil || h.GetSampleCount() == 0 {
		return 0
	}
	return seconds(h.GetSampleSum() / float64(h.GetSampleCount()))
}

func seconds(s float64) time.Duration {
	if math.IsNaN(s) || s <= 0 {
		return 0
	}
	return time.Duration(s * float64(time.Second))
}
