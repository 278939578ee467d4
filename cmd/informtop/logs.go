package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"

	"github.com/informtop/informtop/internal/ownerfile"
)

// klogFlags holds klog's own flags, registered once, off the process's
// flag.CommandLine: klog's global -v gates its non-contextual calls.
var klogFlags = sync.OnceValue(func() *flag.FlagSet {
	fs := flag.NewFlagSet("klog", flag.ContinueOnError)
	klog.InitFlags(fs)
	return fs
})

// routeClientLogs keeps client-go's klog lines off the screen: they go to
// --log-file when given, in klog's text format at verbosity v (kubectl's
// -v), and nowhere otherwise. The returned func stops the routing and
// closes the file; call it once the source has stopped.
func routeClientLogs(path string, v int) (func(), error) {
	if path == "" {
		setKlogVerbosity(0)
		klog.SetLogger(logr.Discard())
		return func() {}, nil
	}
	// 0600: the log names the cluster's objects and, at -v 8 and above,
	// holds response bodies (redacted, yet the cluster's objects). An
	// existing log is appended to only if it is as private already.
	f, err := ownerfile.Append(path)
	if err != nil {
		return nil, logFileError(path, err)
	}
	setKlogVerbosity(v)
	// Contextual: client-go's reflector logs through klog.FromContext, and
	// this logger filters those calls at v itself.
	logger := withRedactedBodies(textlogger.NewLogger(textlogger.NewConfig(textlogger.Verbosity(v), textlogger.Output(f))))
	klog.SetLoggerWithOptions(logger, klog.ContextualLogger(true))
	return func() {
		klog.SetLogger(logr.Discard())
		_ = f.Close()
	}, nil
}

// logFileError says why --log-file cannot be written, and what to do.
func logFileError(path string, err error) error {
	var notRegular *ownerfile.NotRegularError
	var unsafe *ownerfile.UnsafeError
	switch {
	case errors.As(err, &notRegular):
		return fmt.Errorf("--log-file %s is %s, not a regular file; give the path of a file to append to (a new one is created readable by you only)", path, notRegular.What)
	case errors.As(err, &unsafe):
		return fmt.Errorf("--log-file %s exists and %s, and the log holds the cluster's objects; run chmod 600 %s, or give a new path", path, unsafe.Why, path)
	}
	return fmt.Errorf("cannot open the log file: %w; pick a writable path for --log-file", err)
}

func setKlogVerbosity(v int) {
	if err := klogFlags().Set("v", strconv.Itoa(v)); err != nil {
		panic(err) // v is checked before; klog takes any int32
	}
}
