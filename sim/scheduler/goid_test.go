package scheduler

import (
	"fmt"
	"sync"
	"testing"
)

// The runtime g's goid, parentGoid and gopc are read at offsets found once,
// not guessed: in every goroutine, goid is the id its stack header prints,
// and creation's site and parent are what its "created by" lines print,
// whether the site was read from the stack (first) or from the cache.
func TestTheRuntimesGFieldsAreReadAsTheStackPrintsThem(t *testing.T) {
	if f := gOffsets(); getgp() != nil && (f.goid < 0 || f.parentGoid < 0 || f.gopc < 0) {
		t.Fatalf("the calibration found the offsets %+v in the runtime's g: every call in reads a stack", f)
	}
	var wg sync.WaitGroup
	errs := make(chan string, 256)
	for range 64 {
		wg.Go(func() {
			if a, b := goid(), stackGoid(); a != b {
				errs <- fmt.Sprintf("goid %d, stack header %d", a, b)
			}
			for range 2 { // the second from the cache
				site, parent := creation()
				ssite, sparent := stackCreation()
				if site != ssite || parent != sparent {
					errs <- fmt.Sprintf("creation %q in %d, stack %q in %d", site, parent, ssite, sparent)
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
