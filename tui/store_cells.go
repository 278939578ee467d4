package tui

import (
	"time"

	"k8s.io/apimachinery/pkg/util/duration"
)

// The Store's own cells read as kubectl prints them, so a value copied
// from one compares with the other.

// ageCell is an object's age as kubectl get prints it ("70s", "6m",
// "12m"): apimachinery's HumanDuration of the time since its creation;
// blank when the source does not tell it (a recording's keys).
func ageCell(now, created time.Time) string {
	if created.IsZero() {
		return ""
	}
	return duration.HumanDuration(since(now, created))
}

// labelCell is LABELS as kubectl get --show-labels prints it: "<none>"
// for an object without labels.
func labelCell(text string) string {
	if text == "" {
		return "<none>"
	}
	return text
}
