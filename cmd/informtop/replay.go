package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"k8s.io/apimachinery/pkg/api/resource"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informtop/informtop/agent/report"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/replay"
)

// newReplayCommand is `informtop replay FILE`: a recording served again
// through the engine, with the whole dashboard or one report.
func newReplayCommand(stdout, stderr io.Writer) *cobra.Command {
	o := newOptions()
	var speed float64
	var step bool
	queue := ""
	maxRecord := int64(recording.DefaultMaxRecord)
	cmd := &cobra.Command{
		Use:   "replay FILE [--speed N | --step] [--queue DeltaFIFO|RealFIFO] [--once --json]",
		Short: "replay a recording made with informtop record, through the engine",
		Long: `Serves a recording to informers built as recorded: the same LIST pages, watch events, errors and gaps at
the recorded times (or N× faster), through the engine, with the whole dashboard, step mode and narration.
Simulated listeners take the recorded time in each callback, so a slow or stalled handler is slow again.
--queue replays through the other queue kind to compare them. --once waits until the whole recording has
been served and processed, then prints one report: the same file always gives the same report.`,
		Example: `  informtop replay pods.rec.zst
  informtop replay pods.rec.zst --speed 10
  informtop replay pods.rec.zst --step               start paused: press n to step one item at a time
  informtop replay pods.rec.zst --queue DeltaFIFO --once --json`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return fmt.Errorf("replay takes one recording, e.g. %s pods.rec.zst", cmd.CommandPath())
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			return runReplay(args[0], o, speed, cmd.Flags().Changed("speed"), step, queue, maxRecord, stdout, stderr)
		},
	}
	fs := cmd.Flags()
	fs.SortFlags = false
	fs.Float64Var(&speed, "speed", 1, "pace: 1 as recorded, 10 ten times faster, 0 as fast as possible (the default with --once)")
	fs.BoolVar(&step, "step", false, "start with processing paused, to step through the recording item by item")
	fs.Var(&choiceValue{p: &queue, check: func(s string) error {
		var k source.QueueKind
		return k.UnmarshalText([]byte(s))
	}, choices: []string{"RealFIFO\treplay through client-go's default queue", "DeltaFIFO\treplay through the classic queue"}}, "queue", "replay through this queue kind instead of the recorded one: RealFIFO or DeltaFIFO")
	fs.BoolVar(&o.once, "once", false, "replay the whole recording, print one report and exit")
	fs.BoolVar(&o.json, "json", false, "with --once: print the report as JSON")
	fs.DurationVar(&o.timeout, "timeout", 60*time.Second, "with --once: how long to wait for the sync, and for the processing once everything was served")
	fs.DurationVar(&o.refresh, "refresh", 100*time.Millisecond, "dashboard refresh interval")
	fs.Var(sizeValue{&maxRecord}, "max-record", "the most one record or object of the file may take decompressed, e.g. 1Gi: raise it for a recording of a list larger than this")
	o.addLogFlags(fs, "write client-go's log to this file")
	expect(fs, "speed", "a number: 1 as recorded, 10 ten times faster, 0 as fast as possible")
	expect(fs, "queue", "RealFIFO or DeltaFIFO")
	expect(fs, "timeout", "a duration such as 30s or 2m")
	expect(fs, "refresh", "a duration such as 100ms or 1s")
	expect(fs, "max-record", "a size such as 512Mi or 1Gi")
	expect(fs, "v", "a verbosity level from 0 to 10, e.g. 4")
	return cmd
}

func runReplay(path string, o *options, speed float64, speedSet, step bool, queue string, maxRecord int64, stdout, stderr io.Writer) error {
	if err := o.validateCommon(); err != nil {
		return err
	}
	// NaN compares false with everything, so it would pass a sign check
	// and pace the replay as 0; an infinite speed is no pace either.
	if math.IsNaN(speed) || math.IsInf(speed, 0) {
		return fmt.Errorf("--speed takes a number from 0 up, not %v: e.g. --speed 10, or --speed 0 for as fast as possible", strconv.FormatFloat(speed, 'g', -1, 64))
	}
	if speed < 0 {
		return fmt.Errorf("--speed must not be negative, e.g. --speed 10 or --speed 0 for as fast as possible")
	}
	if step && o.once {
		return errors.New("--step goes with the dashboard, --once replays to the end unattended: drop one")
	}
	if !o.once && !isTerminal(stdout) {
		return fmt.Errorf("stdout is not a terminal, so the dashboard cannot start; use informtop replay %s --once for a table or --once --json for JSON", path)
	}
	if o.once && !speedSet {
		speed = 0
	}
	opts := replay.Options{Speed: speed}
	if queue != "" {
		var k source.QueueKind
		if err := k.UnmarshalText([]byte(queue)); err != nil {
			return err
		}
		opts.Queue = &k
	}
	r, err := recording.Open(path, recording.Limits{MaxRecord: maxRecord})
	if err != nil {
		return err
	}
	// New reads ahead: a file whose first records are wrong is refused
	// before anything is shown. The replay reads the rest as it goes.
	src, err := replay.New(r, opts)
	if err != nil {
		return err
	}
	defer src.Close()
	o.scope = report.Scope{Server: path}
	ctx, end, err := startSession(o)
	if err != nil {
		return err
	}
	defer end()
	if err := resolveRedactLocally(o.redactResources, src.Informers(), "the recording"); err != nil {
		return err
	}
	utilruntime.ReallyCrash = false // as for informtop's own informers
	if o.once {
		code, err := replayOnce(ctx, src, o, stdout, stderr)
		if err != nil {
			return err
		}
		if code != 0 {
			return exitError{code}
		}
		return nil
	}
	if step {
		src.SetPausedBy(true, source.PausedByYou)
	}
	err = present(ctx, src, o, stdout, stderr)
	if ferr := src.Err(); ferr != nil {
		return ferr
	}
	tellWhatWasRead(src, stderr)
	return err
}

// replayOnce replays to the end, waits until everything was processed,
// and prints the replay's report. Exit 1 when it did not get there; the
// file's problem, without a report, when one stopped the replay.
func replayOnce(ctx context.Context, src *replay.Source, o *options, stdout, stderr io.Writer) (int, error) {
	runCtx, stop := startSource(ctx, src)
	defer stop()
	// Serving takes the recording's length at its pace; processing what
	// was served, at most --timeout more.
	err := src.SettledWithin(runCtx, o.timeout)
	if ferr := src.Err(); ferr != nil {
		return exitOK, ferr
	}
	r := src.Report()
	r.Scope, r.InformtopVersion = o.scope, currentVersions().informtop
	if !writeReport(r, o, stdout, stderr) {
		return exitNotSynced, nil
	}
	tellWhatWasRead(src, stderr)
	if err != nil {
		fmt.Fprintf(stderr, "informtop: %v; the report shows where it stopped\n", err)
		return exitNotSynced, nil
	}
	return exitOK, nil
}

// tellWhatWasRead says where the file was cut short and what the replay
// left out, once it has been read.
func tellWhatWasRead(src *replay.Source, stderr io.Writer) {
	select {
	case <-src.Read():
	default:
		return
	}
	if st := src.Stop(); st != nil {
		fmt.Fprintf(stderr, "informtop: %s\n", st.Sentence(src.Path()))
	}
	if s := src.Unstored().Sentence(src.Path()); s != "" {
		fmt.Fprintf(stderr, "informtop: %s\n", s)
	}
}

// sizeValue is a flag taking a size as Kubernetes writes quantities:
// 512Mi, 1Gi, 300M.
type sizeValue struct{ p *int64 }

func (v sizeValue) String() string { return resource.NewQuantity(*v.p, resource.BinarySI).String() }

func (v sizeValue) Set(s string) error {
	q, err := resource.ParseQuantity(s)
	if err != nil {
		return err
	}
	n, ok := q.AsInt64()
	if !ok || n <= 0 {
		return fmt.Errorf("%s is not a positive size", s)
	}
	*v.p = n
	return nil
}

func (v sizeValue) Type() string { return "size" }
