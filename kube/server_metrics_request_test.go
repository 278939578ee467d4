package kube

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

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
