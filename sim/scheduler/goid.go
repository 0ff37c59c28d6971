package scheduler

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"unsafe"
)

// goid is the calling goroutine's id. It is only used to tell goroutines
// apart while a task is blocked outside, never for ordering. Every call into
// the simulator from a goroutine the scheduler is not running asks it (a
// hosted garbage collector's 20 workers, each rejoining at every queue call),
// so it is read where it is kept: the goid field of the runtime's g, at the
// offset goidOffset found once, in a nanosecond; where that offset is not
// known (another architecture, or a runtime whose g the calibration does not
// recognise), from the stack header "goroutine N [running]:", in
// microseconds (stackGoid). The two agree:
// TestGoidReadsTheRuntimesIDOfEveryGoroutine.
func goid() uint64 {
	if off := goidOffset(); off >= 0 {
		return *(*uint64)(unsafe.Add(getgp(), off))
	}
	return stackGoid()
}

// stackGoid is the calling goroutine's id, read from its stack header.
func stackGoid() uint64 {
	var buf [64]byte
	b := buf[:runtime.Stack(buf[:], false)]
	b = bytes.TrimPrefix(b, []byte("goroutine "))
	if i := bytes.IndexByte(b, ' '); i > 0 {
		b = b[:i]
	}
	id, _ := strconv.ParseUint(string(b), 10, 64)
	return id
}

// gScan bounds the bytes of a g the calibration reads: the runtime's g is
// about 400 bytes (Go 1.26), its goid within the first half.
const gScan = 320

// goidOffset is the offset of the goid field in the runtime's g, or -1. It
// is found once, from goroutines of different ids: the one offset of the g
// at which each goroutine's own g holds its id (as its stack header says)
// in every one of them. Two offsets that both hold (a field equal to the
// goid by chance in all of them) or none leave it unknown.
var goidOffset = sync.OnceValue(func() int {
	if getgp() == nil {
		return -1
	}
	candidates := map[int]bool{}
	for off := 0; off+8 <= gScan; off += 8 {
		candidates[off] = true
	}
	check := func() {
		id, g := stackGoid(), getgp()
		for off := range candidates { // lint:order-independent a set is narrowed
			if *(*uint64)(unsafe.Add(g, off)) != id {
				delete(candidates, off)
			}
		}
	}
	check()
	for range 8 {
		done := make(chan struct{})
		go func() { defer close(done); check() }()
		<-done
	}
	if len(candidates) != 1 {
		return -1
	}
	for off := range candidates { // lint:order-independent one element
		return off
	}
	return -1
})
