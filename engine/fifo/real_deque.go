package fifo

// realBlockSize is the number of items per deque block (a power of two).
const realBlockSize = 256

// realDeque is RealFIFO's item storage: a FIFO of fixed-size blocks. Unlike
// one re-sliced slice, growing it never copies queued items and popping
// releases whole blocks, so a queue that swings between empty and 100k
// items costs neither big copies nor a big idle backing array.
//
// Invariant: blocks[0][head] is the oldest item when n > 0; every block is
// full except the last, which holds the items up to head+n. Not safe for
// concurrent use; RealFIFO guards it with its lock.
type realDeque struct {
	blocks [][]realItem
	head   int
	n      int
	spare  []realItem // one emptied block kept for reuse
}

func (q *realDeque) len() int { return q.n }

// at returns the i-th oldest item; i must be in [0, len).
func (q *realDeque) at(i int) *realItem {
	i += q.head
	return &q.blocks[i/realBlockSize][i%realBlockSize]
}

func (q *realDeque) push(it realItem) {
	end := q.head + q.n
	if end == len(q.blocks)*realBlockSize {
		b := q.spare
		q.spare = nil
		if b == nil {
			b = make([]realItem, realBlockSize)
		}
		q.blocks = append(q.blocks, b)
	}
	*q.at(q.n) = it
	q.n++
}

// drop removes the n oldest items (n <= len), clearing them so the queue no
// longer keeps their objects alive.
func (q *realDeque) drop(n int) {
	for i := 0; i < n; i++ {
		*q.at(i) = realItem{}
	}
	q.head += n
	q.n -= n
	if q.n == 0 {
		q.head = 0
		for i := range q.blocks {
			q.spare = q.blocks[i]
			q.blocks[i] = nil
		}
		q.blocks = q.blocks[:0]
		return
	}
	for q.head >= realBlockSize {
		q.spare = q.blocks[0]
		q.blocks[0] = nil
		q.blocks = q.blocks[1:]
		q.head -= realBlockSize
	}
}
