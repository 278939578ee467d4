package kube

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
	"k8s.io/client-go/kubernetes"

	"github.com/informtop/informtop/internal/kubetest"
)

// TestServerSendsOnlyTheScrapedFamilies: kube-apiserver v1.37 answers the
// scrape with the families informtop reads and nothing else, about a
// quarter of its whole /metrics (two histograms make most of it).
func TestServerSendsOnlyTheScrapedFamilies(t *testing.T) {
	c := kubetest.Shared(t)
	cs := testClients(t, c)
	ctx := context.Background()
	asked, err := readMetrics(ctx, cs)
	if err != nil {
		t.Fatal(err)
	}
	whole, err := cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	families, err := parser.TextToMetricFamilies(bytes.NewReader(asked))
	if err != nil {
		t.Fatal(err)
	}
	for name := range families {
		if !slices.Contains(scrapedFamilies, name) {
			t.Errorf("the server sent %s, which was not asked for", name)
		}
	}
	for _, name := range []string{"apiserver_watch_cache_resource_version", "process_start_time_seconds"} {
		if _, ok := families[name]; !ok {
			t.Errorf("the server did not send %s", name)
		}
	}
	t.Logf("a scrape reads %d bytes; the whole /metrics is %d", len(asked), len(whole))
	if len(asked)*3 > len(whole) {
		t.Fatalf("the scrape read %d bytes of the %d of the whole /metrics; want a third at most", len(asked), len(whole))
	}
}

// BenchmarkServerMetricsRead: the API server's CPU (utime+stime of its
// process) per read of /metrics, whole and as informtop asks for it; the
// difference is what a dashboard on the Pipeline view costs the server
// every --server-metrics-every (docs/benchmarks.md, "Cost to the API
// server"):
//
//	INFORMTOP_KUBE_BIN=… go test -run '^$' -bench ServerMetricsRead -benchtime 50x ./kube
func BenchmarkServerMetricsRead(b *testing.B) {
	c := kubetest.Shared(b)
	cs, err := kubernetes.NewForConfig(c.RESTConfig())
	if err != nil {
		b.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		read func(context.Context) ([]byte, error)
	}{
		{"whole", func(ctx context.Context) ([]byte, error) {
			return cs.CoreV1().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
		}},
		{"asked", func(ctx context.Context) ([]byte, error) { return readMetrics(ctx, cs) }},
	} {
		b.Run(tc.name, func(b *testing.B) {
			pid := c.APIServerPID()
			before := processCPU(b, pid)
			var size int
			for b.Loop() {
				raw, err := tc.read(context.Background())
				if err != nil {
					b.Fatal(err)
				}
				size = len(raw)
			}
			used := processCPU(b, pid) - before
			b.ReportMetric(float64(used.Microseconds())/1e3/float64(b.N), "server-cpu-ms/read")
			b.ReportMetric(float64(size), "bytes/read")
		})
	}
}

// processCPU is a process's user and system CPU time so far, from
// /proc/<pid>/stat, in clock ticks of 10 ms.
func processCPU(b *testing.B, pid int) time.Duration {
	b.Helper()
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The fields after the command's name, which is in parentheses.
	f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	utime, err1 := strconv.ParseInt(f[11], 10, 64)
	stime, err2 := strconv.ParseInt(f[12], 10, 64)
	if err1 != nil || err2 != nil {
		b.Fatalf("/proc/%d/stat: %s", pid, stat)
	}
	return time.Duration(utime+stime) * 10 * time.Millisecond
}
