package pipeline

import "time"

// The handler methods a listener runs.
const (
	CallbackAdd    = "OnAdd"
	CallbackUpdate = "OnUpdate"
	CallbackDelete = "OnDelete"
)

// Delivered counts the calls a handler returned from, by kind. Sync
// counts OnUpdate calls from a resync (resourceVersion unchanged);
// Tombstones the OnDelete calls (also in Delete) whose object was a
// cache.DeletedFinalStateUnknown: deletions inferred from a relist.
type Delivered struct {
	Add        uint64 `json:"add"`
	Update     uint64 `json:"update"`
	Delete     uint64 `json:"delete"`
	Sync       uint64 `json:"sync"`
	Tombstones uint64 `json:"tombstones"`
}

// Total is the number of calls that returned.
func (d Delivered) Total() uint64 { return d.Add + d.Update + d.Delete + d.Sync }

// Pending is one notification waiting in a listener's backlog.
type Pending struct {
	Callback string `json:"callback"` // CallbackAdd, CallbackUpdate or CallbackDelete
	Key      string `json:"key"`
	// Sync: an OnUpdate from a resync.
	Sync bool `json:"sync,omitempty"`
}

// CacheMutation is one change a handler made to a cached object.
type CacheMutation struct {
	Time     time.Time `json:"time"`
	Callback string    `json:"callback"` // CallbackAdd or CallbackUpdate
	Key      string    `json:"key"`
	// Fields are the changes, e.g. `metadata.labels.touched: "" → "yes"`.
	Fields []string `json:"fields"`
}
