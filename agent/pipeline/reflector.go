package pipeline

import "time"

// Reflector is what was seen of an informer's LIST and WATCH calls.
type Reflector struct {
	// Lists counts full lists started, retries included: LIST first pages
	// and streamed (WatchList) initial lists.
	Lists uint64 `json:"lists"`
	// ListPages counts every LIST response, paginated or not.
	ListPages      uint64 `json:"listPages"`
	ListedItems    uint64 `json:"listedItems"`
	ListInProgress bool   `json:"listInProgress"`
	// ListStreamed: the newest (or in-progress) initial list came as a
	// WatchList stream, not LIST pages.
	ListStreamed bool `json:"listStreamed"`
	// LastListItems counts the items of the newest complete list, or so
	// far while one is in progress.
	LastListItems int           `json:"lastListItems"`
	LastListTime  time.Duration `json:"lastListTime"`
	// Relists counts lists started after a complete one; retrying a
	// failed list is the same relist.
	Relists uint64 `json:"relists"`
	// Watches counts WATCH streams opened.
	Watches    uint64    `json:"watches"`
	WatchOpen  bool      `json:"watchOpen"`
	WatchSince time.Time `json:"watchSince"`
	// WatchTimeout is the timeout the open watch asked the server for
	// (its ListOptions' TimeoutSeconds; client-go's reflector picks 5–10
	// minutes at random): the server ends the watch then. 0 when no watch
	// is open or it asked for none.
	WatchTimeout   time.Duration `json:"watchTimeout"`
	WatchEvents    uint64        `json:"watchEvents"`
	WatchAdded     uint64        `json:"watchAdded"`
	WatchModified  uint64        `json:"watchModified"`
	WatchDeleted   uint64        `json:"watchDeleted"`
	WatchBookmarks uint64        `json:"watchBookmarks"`
	// WatchErrors counts ERROR events inside a watch stream (410 Gone).
	WatchErrors uint64 `json:"watchErrors"`
	// Errors counts failed LIST or WATCH calls, watch ERROR events and
	// other failures the reflector reports.
	Errors        uint64    `json:"errors"`
	LastError     string    `json:"lastError"`
	LastErrorTime time.Time `json:"lastErrorTime"`
	Resyncs       uint64    `json:"resyncs"`
	// LastEventTime is when an ADDED, MODIFIED or DELETED watch event was
	// last seen, to within a second.
	LastEventTime    time.Time `json:"lastEventTime"`
	LastBookmarkTime time.Time `json:"lastBookmarkTime"`
	// LastHeard is the newest of the last event, bookmark, list page and
	// watch opened: when the server last answered.
	LastHeard time.Time `json:"lastHeard"`
}
