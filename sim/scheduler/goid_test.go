package scheduler

import (
	"fmt"
	"sync"
	"testing"
)

// goid reads the runtime's id of the calling goroutine, the one its stack
// header prints, in every goroutine (the field's offset found once, not
// guessed), and where it cannot it reads the stack header itself.
func TestGoidReadsTheRuntimesIDOfEveryGoroutine(t *testing.T) {
	if goidOffset() < 0 && getgp() != nil {
		t.Fatal("the calibration found no goid field in the runtime's g: every call in reads a stack header")
	}
	var wg sync.WaitGroup
	errs := make(chan string, 64)
	for range 64 {
		wg.Go(func() {
			if a, b := goid(), stackGoid(); a != b {
				errs <- fmt.Sprintf("goid %d, stack header %d", a, b)
			}
		})
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
}
