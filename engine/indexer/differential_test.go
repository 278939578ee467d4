package indexer

import (
	"math/rand/v2"
	"testing"
)

func TestDifferentialAgainstClientGo(t *testing.T) {
	for _, seed := range []uint64{1, 2, 3, 4} {
		rng := rand.New(rand.NewPCG(seed, 0x1dec5))
		prog := make([]byte, 3*1000)
		for n := range prog {
			prog[n] = byte(rng.UintN(256))
		}
		newModel(t).run(prog)
	}
}

func FuzzIndexer(f *testing.F) {
	f.Add([]byte{0, 0, 3, 0, 1, 5, 1, 0, 12})                       // add, add, move between tag sets
	f.Add([]byte{0, 2, 1, 2, 2, 1, 3, 3, 0})                        // delete, tombstone delete
	f.Add([]byte{0, 0, 15, 4, 1, 64, 0, 9, 2})                      // replace with a repeated key
	f.Add([]byte{0, 4, 31, 7, 0, 0, 7, 0, 0, 1, 4, 48})             // AddIndexers twice (conflict)
	f.Add([]byte{6, 3, 8, 6, 7, 2, 5, 0, 128, 8, 0, 0})             // transactions, keyless, empty bookmark
	f.Add([]byte{0, 1, 17, 9, 1, 200, 1, 1, 128, 9, 1, 0, 2, 1, 0}) // same values, empty rv
	f.Fuzz(func(t *testing.T, prog []byte) {
		if len(prog) > 3*100 { // keeps each run, and so minimization, cheap
			prog = prog[:3*100]
		}
		newModel(t).run(prog)
	})
}
