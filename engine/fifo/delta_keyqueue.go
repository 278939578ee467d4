package fifo

// dfKeyQueue is DeltaFIFO's order of keys: a slice consumed from a moving
// head index. Popped slots are cleared so their strings can be collected,
// and the live part is moved to the front once the dead prefix is at least
// as long as it, which keeps push and pop amortised O(1). A backing array
// far larger than the live part (left by a burst such as a big relist) is
// swapped for a right-sized one at that point, so memory follows the live
// length rather than the peak. Not safe for concurrent use; DeltaFIFO guards
// it with its mutex.
type dfKeyQueue struct {
	keys []string
	head int // keys[:head] are popped slots
}

// dfKeyQueueMinCap is the capacity below which an idle backing array is
// kept for reuse rather than released.
const dfKeyQueueMinCap = 4096

func (q *dfKeyQueue) len() int { return len(q.keys) - q.head }

func (q *dfKeyQueue) push(key string) { q.keys = append(q.keys, key) }

// popFront removes and returns the oldest key; the queue must not be empty.
func (q *dfKeyQueue) popFront() string {
	key := q.keys[q.head]
	q.keys[q.head] = ""
	q.head++
	if live := q.len(); live == 0 || (q.head >= 64 && q.head >= live) {
		q.compact(live)
	}
	return key
}

// compact moves the live keys to the front of the backing array, or to a
// new one when the current array is mostly idle capacity.
func (q *dfKeyQueue) compact(live int) {
	if c := cap(q.keys); c > dfKeyQueueMinCap && c > 4*live {
		var keys []string
		if live > 0 {
			keys = make([]string, live, 2*live)
			copy(keys, q.keys[q.head:])
		}
		q.keys, q.head = keys, 0
		return
	}
	n := copy(q.keys, q.keys[q.head:])
	clear(q.keys[n:])
	q.keys, q.head = q.keys[:n], 0
}

// front returns the oldest key without removing it; ok is false when empty.
func (q *dfKeyQueue) front() (key string, ok bool) {
	if q.len() == 0 {
		return "", false
	}
	return q.keys[q.head], true
}

// each calls fn for the keys from oldest to newest until fn returns false.
// fn must not push or pop.
func (q *dfKeyQueue) each(fn func(key string) bool) {
	for _, key := range q.keys[q.head:] {
		if !fn(key) {
			return
		}
	}
}
