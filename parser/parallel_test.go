package parser

import (
	"sync"
	"testing"
)

// TestParseConcurrent checks that Parse can run from many goroutines (the
// wire server parses per session); run it with -race.
func TestParseConcurrent(t *testing.T) {
	var wg sync.WaitGroup
	for g := 0; g < 4; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for _, s := range fuzzSeeds {
				if stmts, err := Parse(s); err == nil {
					for _, st := range stmts {
						_ = st.Restore()
					}
				}
			}
		}()
	}
	wg.Wait()
}
