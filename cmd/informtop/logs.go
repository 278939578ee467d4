package main

import (
	"flag"
	"fmt"
	"os"
	"strconv"
	"sync"

	"github.com/go-logr/logr"
	"k8s.io/klog/v2"
	"k8s.io/klog/v2/textlogger"
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
	// holds response bodies (redacted, yet the cluster's objects).
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("cannot open the log file: %w; pick a writable path for --log-file", err)
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

func setKlogVerbosity(v int) {
	if err := klogFlags().Set("v", strconv.Itoa(v)); err != nil {
		panic(err) // v is checked before; klog takes any int32
	}
}
