package local

import (
	"maps"
	"time"
)

// Call is one callback a Listener returned from, as kept in its sequence.
type Call struct {
	Callback        string // "OnAdd", "OnUpdate", "OnUpdate(sync)" or "OnDelete"
	Key             string
	ResourceVersion string // of the object handed over (the new one for updates)
	InInitialList   bool   // OnAdd's isInInitialList
	Tombstone       bool   // OnDelete got a cache.DeletedFinalStateUnknown
}

// Record is a copy of what a Listener has been told. Counts include only
// callbacks that returned.
type Record struct {
	Adds        int // every OnAdd, initial-list ones included
	InitialAdds int // OnAdd with isInInitialList
	Updates     int // OnUpdate with a new resourceVersion
	Syncs       int // OnUpdate with an unchanged resourceVersion (resync or relist)
	Deletes     int // every OnDelete, tombstones included
	Tombstones  int // OnDelete with a cache.DeletedFinalStateUnknown
	// SawMutated counts OnUpdate calls whose old object carried
	// MutationLabel: a change some handler made to the shared cached
	// object, which the API server never had.
	SawMutated int
	// TombstoneKeys counts, per key, the OnDelete calls that carried a
	// cache.DeletedFinalStateUnknown.
	TombstoneKeys map[string]int
	// Anomalies describes callbacks that contradict what this listener was
	// told before (an add for a key it already had, an update or delete for
	// a key it never saw, a tombstone whose last state is not the last one
	// it saw, HasSynced already true inside an initial-list OnAdd other
	// than a DeltaFIFO informer's last one, see Listener). A faithful
	// informer never produces one. At most maxAnomalies are kept.
	Anomalies []string
	// Calls is the full sequence, kept only after KeepSequence(true).
	Calls []Call
	// Synced is set when the registration's HasSynced turned true;
	// InitialAddsAtSync is how many initial-list OnAdds had returned then.
	Synced            bool
	SyncedAt          time.Time
	InitialAddsAtSync int
}

// Total is the number of callbacks that returned.
func (r Record) Total() int { return r.Adds + r.Updates + r.Syncs + r.Deletes }

const maxAnomalies = 32

func (r *Record) clone() Record {
	c := *r
	c.TombstoneKeys = maps.Clone(r.TombstoneKeys)
	c.Anomalies = append([]string(nil), r.Anomalies...)
	c.Calls = append([]Call(nil), r.Calls...)
	return c
}

func (r *Record) anomaly(text string) {
	if len(r.Anomalies) < maxAnomalies {
		r.Anomalies = append(r.Anomalies, text)
	}
}
