// Package humanize is the one place where informtop turns numbers,
// durations, rates, plurals and byte sizes into text for people: counts
// with thousands separators ("50,000") or compacted ("12M"), durations as
// a clock reads them ("3m4s", "1.2s", "350ms"), rates ("5/s", "1.2k/s"),
// "1 watch"/"3 watches" and "31 MB". The dashboard, the demo's notes, the
// reports and the command line call it rather than formatting these
// themselves, so the same quantity reads the same everywhere. Layout
// (column widths, padding, marks) stays with the caller.
package humanize
