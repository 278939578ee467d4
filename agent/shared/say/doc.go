// Package say holds the sentences informtop tells people about what a
// source reports: why an informer has not synced, what an error from the
// API server means, a source's status. Sources and the engine hand over
// figures; the dashboard, the reports and the CLI speak through this
// package, so one fact is worded one way everywhere.
package say
