package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"

	"github.com/informtop/informtop/agent/shared/humanize"
	"github.com/informtop/informtop/agent/shared/say"
	"github.com/informtop/informtop/agent/source"
	"github.com/informtop/informtop/recording"
	"github.com/informtop/informtop/tui"
)

// recordProgressEvery is how often a headless recording reports on stderr.
const recordProgressEvery = 5 * time.Second

// newRecordCommand is `informtop record -o FILE`: the source the root
// command would run (a cluster or the demo), its informers' streams
// recorded to FILE for informtop replay.
func newRecordCommand(stdout, stderr io.Writer) *cobra.Command {
	o := newOptions()
	var out string
	var headless, force bool
	cmd := &cobra.Command{
		Use:   "record -o FILE [--duration D] [source flags]",
		Short: "record what the informers receive, for informtop replay",
		Long: `Runs the informers informtop itself would run (a cluster, or the demo with --demo) and records,
for each, what its reflector received — LIST pages, watch opens and closes, every event with its
object (bookmarks and errors included), failed calls — with timestamps, and how long each listener's
callbacks took. Secrets' data is redacted and managedFields stripped. Ends on ctrl+c, after --duration,
or when you quit the dashboard. Without a terminal on stdout, or with --headless, it records without the
dashboard and reports progress on stderr.`,
		Example: `  informtop record -o pods.rec.zst -A -r pods,configmaps --duration 10m
  informtop record -o demo.rec.zst --demo --scenario stalled --seed 3 --headless --duration 1m
  informtop replay pods.rec.zst`,
		Args: noArgs("name the file with -o FILE"),
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runRecord(cmd.Flags(), o, out, force, headless || !isTerminal(stdout), stdout, stderr)
		},
	}
	fs := cmd.Flags()
	o.addFlags(fs)
	fs.StringVarP(&out, "output", "o", "", "the recording file to write, e.g. pods.rec.zst (a new file; --force replaces one)")
	fs.BoolVar(&force, "force", false, "replace the file -o names if it exists (a link is replaced, never written through)")
	fs.BoolVar(&headless, "headless", false, "record without the dashboard, progress on stderr (the default when stdout is not a terminal)")
	fs.Lookup("duration").Usage = "stop recording after this long, e.g. 10m (default: until ctrl+c)"
	for _, name := range []string{"once", "json", "verify", "timeout"} {
		_ = fs.MarkHidden(name)
	}
	return cmd
}

func runRecord(fs *pflag.FlagSet, o *options, out string, force, headless bool, stdout, stderr io.Writer) error {
	if o.once || o.verify {
		return errors.New("record runs until ctrl+c or --duration: --once and --verify go with informtop itself; replay the recording with informtop replay FILE --once")
	}
	if out == "" {
		return errors.New("record needs a file to write: add -o FILE, e.g. informtop record -o pods.rec.zst")
	}
	if err := o.validate(fs); err != nil {
		return err
	}
	// Said before connecting: Start checks again as it creates the file.
	if err := recording.Check(out, recording.Replace(force)); err != nil {
		return err
	}
	ctx, end, err := startSession(o)
	if err != nil {
		return err
	}
	defer end()
	utilruntime.ReallyCrash = false // as for informtop's own informers
	if o.duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, o.duration)
		defer cancel()
	}
	src, err := chooseSource(ctx, o, fs)
	if err != nil {
		return err
	}
	if src.inProcess == nil {
		return fmt.Errorf("the %s source cannot be recorded: only informers running in informtop can", src.Kind())
	}
	if !headless {
		if err := tui.CheckKeyMap(""); err != nil {
			return err
		}
	}
	w, err := recording.Start(out, src.inProcess, o.recordingHeader(src), recording.Replace(force))
	if err != nil {
		return err
	}
	started := time.Now()
	if headless {
		recordHeadless(ctx, src, w, stderr)
	} else {
		if err := runDashboard(ctx, recordingShown(src, w), o); err != nil {
			fmt.Fprintf(stderr, "informtop: %v\n", err)
		}
	}
	cerr := w.Close()
	st := w.Stats()
	fmt.Fprintf(stderr, "informtop: recorded %s (%s) to %s in %s; replay it with informtop replay %s\n",
		humanize.Plural(st.Records, "record"), humanize.Bytes(st.Bytes), out, humanize.Elapsed(time.Since(started), time.Second), out)
	if st.Dropped > 0 {
		fmt.Fprintf(stderr, "informtop: the disk fell behind and %s were dropped (marked as gaps in the file); record fewer resources or to a faster disk\n", humanize.Plural(st.Dropped, "record"))
	}
	if cerr != nil {
		fmt.Fprintf(stderr, "informtop: %v\n", cerr)
		return exitError{exitNotSynced}
	}
	return nil
}

// recordHeadless runs src until ctx ends, a progress line on stderr every
// recordProgressEvery.
func recordHeadless(ctx context.Context, src source.Source, w *recording.Writer, stderr io.Writer) {
	ctx, stop := startSource(ctx, src)
	defer stop()
	fmt.Fprintf(stderr, "informtop: recording %s to %s; ctrl+c ends it\n", src.Title(), w.Path())
	tick := time.NewTicker(recordProgressEvery)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-tick.C:
			st := w.Stats()
			line := fmt.Sprintf("informtop: recording: %s, %s", humanize.Plural(st.Records, "record"), humanize.Bytes(st.Bytes))
			if st.Dropped > 0 {
				line += fmt.Sprintf(", %s dropped: the disk is falling behind", humanize.Plural(st.Dropped, "record"))
			}
			if st.Err != nil {
				line += "; " + st.Err.Error()
			}
			fmt.Fprintln(stderr, line)
		}
	}
}

// recordingShown puts "● REC 1.2 MB" first on the dashboard's top line
// (as the source's status, which every width shows) before whatever the
// source has to say; the source keeps every control.
func recordingShown(src source.Source, w *recording.Writer) source.Source {
	// A recording holds the informers it started with: what ":svc" or
	// ":ns" would add or replace is not recorded, so they are not offered.
	noRetarget := func(c source.Controls) source.Controls { c.Retarget = nil; return c }
	return source.Decorate(src, source.Decoration{Controls: noRetarget, Frame: func(f source.Frame) source.Frame {
		st := w.Stats()
		m := "● REC " + humanize.Bytes(st.Bytes)
		if st.Dropped > 0 {
			m += fmt.Sprintf(" (%s dropped: the disk is falling behind)", humanize.Plural(st.Dropped, "record"))
		}
		if st.Err != nil {
			m += " · " + st.Err.Error()
		}
		if why := say.Status(f.Status, f.Taken); why != "" {
			m += " · " + why
		}
		f.Status.Message = m
		return f
	}})
}

// recordingHeader is what only the command line knows about the
// informers: namespace, selectors and transforms (the demo has none).
func (o *options) recordingHeader(src chosen) recording.Header {
	vs := currentVersions()
	h := recording.Header{Informtop: vs.informtop, Source: src.Title()}
	if src.demo != nil {
		h.Source = fmt.Sprintf("%s (seed %d)", src.Title(), o.seed)
		return h
	}
	ns := ""
	if !o.allNamespaces {
		ns, _, _ = o.kubeFlags.ToRawKubeConfigLoader().Namespace()
	}
	var transforms []string
	if !o.keepManagedFields {
		transforms = append(transforms, "strip-managed-fields")
	}
	if o.metadataOnly {
		transforms = append(transforms, "metadata-only")
	}
	if o.stripLastApplied {
		transforms = append(transforms, "strip-last-applied")
	}
	for _, snap := range src.Pull(0, 1).Snapshots {
		h.Informers = append(h.Informers, recording.Informer{Name: snap.Name, Namespace: ns, Labels: o.selector, Fields: o.fieldSelector, Transforms: transforms})
	}
	return h
}
