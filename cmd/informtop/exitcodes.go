package main

// Exit codes: one meaning each, the same for every subcommand that can
// meet it. docs/usage.md has the table users read; exitcodes_test.go
// fails when it and exitCodes disagree.
const (
	exitOK = 0
	// exitNotSynced: something did not sync (nothing is verified then),
	// the dashboard failed, or the report or recording could not be
	// written.
	exitNotSynced = 1
	// exitBadInput: flags or files that cannot be used, or a source that
	// cannot be read at all (said at once, not after --timeout).
	exitBadInput = 2
	// exitDiffers: --verify found a cache that differs from the server.
	exitDiffers = 3
	// exitUnverified: --verify could not compare a cache (a check not made).
	exitUnverified = 4
	// exitStalled: --fail-on-stall D found a handler in one callback
	// longer than D.
	exitStalled = 5
)

// exitCode is one row of the exit code table.
type exitCode struct {
	code    int
	meaning string
}

// exitCodes is the table docs/usage.md shows, in the order the codes win
// when several apply: a stall explains a sync that did not come, and a
// difference found is the finding (the informers that could not be
// checked are named beside it on stderr).
var exitCodes = []exitCode{
	{exitBadInput, "bad input (flags, files), or a source that cannot be read at all (an agent that wants a token, an address where nothing listens or that is no agent, Prometheus that cannot be read): said at once, not after `--timeout`"},
	{exitStalled, "`--fail-on-stall D` found a handler in one callback longer than D (looked for from the start, so it ends the wait D after the call began)"},
	{exitNotSynced, "something did not sync (nothing is verified then), or the dashboard, the report or a recording failed"},
	{exitDiffers, "`--verify` found a cache that differs from the server"},
	{exitUnverified, "`--verify` could not compare a cache (a check not made: the server could not be listed, `--timeout` ran out, the source cannot list a server)"},
	{exitOK, "fine"},
}
