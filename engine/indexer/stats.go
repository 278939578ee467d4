package indexer

// Stats is a cheap copy of the store's instrumentation.
type Stats struct {
	Objects             int            `json:"objects"`
	Indexes             map[string]int `json:"indexes"` // index name -> number of distinct indexed values
	LastResourceVersion string         `json:"lastResourceVersion"`
	Adds                uint64         `json:"adds"`
	Updates             uint64         `json:"updates"`
	Deletes             uint64         `json:"deletes"`
	Replaces            uint64         `json:"replaces"`
	Generation          uint64         `json:"generation"` // bumped by every change; lets readers skip unchanged key lists
}
