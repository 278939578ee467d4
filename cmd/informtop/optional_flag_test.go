package main

import (
	"io"
	"slices"
	"testing"

	"github.com/spf13/pflag"

	"github.com/informtop/informtop/demo"
	"github.com/informtop/informtop/kube"
)

// --watch-list alone means on, as the README writes it; a value may still
// follow as the next word or after "=".
func TestWatchListAlone(t *testing.T) {
	root := newRootCommand("informtop", io.Discard, io.Discard)
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"--watch-list"}, []string{"--watch-list"}},
		{[]string{"--watch-list", "--once"}, []string{"--watch-list", "--once"}},
		{[]string{"--watch-list", "off", "--once"}, []string{"--watch-list=off", "--once"}},
		{[]string{"--watch-list=auto"}, []string{"--watch-list=auto"}},
		{[]string{"--watch-list", "scenarios"}, []string{"--watch-list", "scenarios"}},
		{[]string{"--", "--watch-list", "on"}, []string{"--", "--watch-list", "on"}},
	} {
		if got := joinOptionalValue(root, tc.args, "--watch-list"); !slices.Equal(got, tc.want) {
			t.Errorf("%q: %q, want %q", tc.args, got, tc.want)
		}
	}
	o := newOptions()
	fs := pflag.NewFlagSet("t", pflag.ContinueOnError)
	o.addFlags(fs)
	if err := fs.Parse([]string{"--watch-list", "--once"}); err != nil || o.watchList != "on" || !o.once {
		t.Errorf("bare --watch-list: %q, once %v, %v; want on", o.watchList, o.once, err)
	}
	if demoList(kube.WatchListAuto) != demo.ListAuto || demoList(kube.WatchListOn) != demo.ListStream || demoList(kube.WatchListOff) != demo.ListPages {
		t.Error("--watch-list auto, on, off do not map to the demo's auto, stream, pages")
	}
}
