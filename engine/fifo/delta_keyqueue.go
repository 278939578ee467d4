package fifo

// dfKeyQueue is DeltaFIFO's order of keys: a slice consumed from a moving
// head index. Popped slots are cleared so their strings can be collected,
// and the live part is moved to the front once the dead prefix is at least
// as long as it, which keeps push and pop amortised O(1) and memory
// proportional to the live length. Not safe for concurrent use; DeltaFIFO
// guards it with its mutex.
type dfKeyQueue struct {
	keys []string
	head int // keys[:head] are popped slots
}

func (q *dfKeyQueue) len() int { return len(q.keys) - q.head }

func (q *dfKeyQueue) push(key string) { q.keys = append(q.keys, key) }

// popFront removes and returns the oldest key; the queue must not be empty.
func (q *dfKeyQueue) popFront() string {
	key := q.keys[q.head]
	q.keys[q.head] = ""
	q.head++
	switch live := q.len(); {
	case live == 0:
		q.keys, q.head = q.keys[:0], 0
	case q.head >= 64 && q.head >= live:
		n := copy(q.keys, q.keys[q.head:])
		clear(q.keys[n:])
		q.keys, q.head = q.keys[:n], 0
	}
	return key
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
