package instr

import "time"

// ReflectorStats is what the instrumented ListerWatcher saw of the reflector.
type ReflectorStats struct {
	Lists          uint64        `json:"lists"`     // full lists started, retries included: LIST first pages and streamed (WatchList) initial lists
	ListPages      uint64        `json:"listPages"` // every LIST response, paginated or not
	ListedItems    uint64        `json:"listedItems"`
	ListInProgress bool          `json:"listInProgress"`
	ListStreamed   bool          `json:"listStreamed"`  // the newest (or in-progress) initial list came as a WatchList stream, not LIST pages
	LastListItems  int           `json:"lastListItems"` // items in the newest complete list, or so far while one is in progress
	LastListTime   time.Duration `json:"lastListTime"`
	Relists        uint64        `json:"relists"` // lists started after a complete one; retrying a failed list is the same relist
	Watches        uint64        `json:"watches"` // WATCH streams opened
	WatchOpen      bool          `json:"watchOpen"`
	WatchSince     time.Time     `json:"watchSince"`
	WatchEvents    uint64        `json:"watchEvents"`
	WatchAdded     uint64        `json:"watchAdded"`
	WatchModified  uint64        `json:"watchModified"`
	WatchDeleted   uint64        `json:"watchDeleted"`
	WatchBookmarks uint64        `json:"watchBookmarks"`
	WatchErrors    uint64        `json:"watchErrors"` // ERROR events inside a watch stream (e.g. 410 Gone)
	Errors         uint64        `json:"errors"`      // failed LIST/WATCH calls, watch ERROR events (with TapWatchStreams) and other failures the reflector reports
	LastError      string        `json:"lastError"`
	LastErrorTime  time.Time     `json:"lastErrorTime"`
	Resyncs        uint64        `json:"resyncs"`
	// LastEventTime is when an ADDED, MODIFIED or DELETED watch event was
	// last seen, to within a second (see FreshnessOf).
	LastEventTime    time.Time `json:"lastEventTime"`
	LastBookmarkTime time.Time `json:"lastBookmarkTime"`
	// LastHeard is the newest of the last event, bookmark, list page and
	// watch opened: when the server last answered.
	LastHeard time.Time `json:"lastHeard"`
}
