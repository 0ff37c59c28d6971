package scheduler

import (
	"bytes"
	"runtime"
	"strconv"
	"sync"
	"unsafe"
)

// Reading the runtime's g.
//
// Every call into the simulator from a goroutine the scheduler is not
// running asks which goroutine it is (goid), and every goroutine it meets
// for the first time asks where it was created and by whom (creation): a
// hosted garbage collector's 20 workers rejoin at every queue call, and 40
// of its goroutines arrive in every world. The runtime prints both in a
// goroutine's stack (its header "goroutine N [running]:", its last lines
// "created by F in goroutine P" and the go statement's file and line),
// which costs microseconds a call and took a quarter of a judged small
// world's CPU. The runtime's g keeps them as fields (goid, parentGoid,
// gopc), read here in a nanosecond at offsets found once (gFields), and the
// text of a go statement's site is read from a stack once per go statement
// (sites). Where an offset is not found (another architecture, a runtime
// whose g the calibration does not recognise) the stack is read as before.
// TestTheRuntimesGFieldsAreReadAsTheStackPrintsThem compares both ways.

// goid is the calling goroutine's id. It is only used to tell goroutines
// apart while a task is blocked outside, never for ordering.
func goid() uint64 {
	if f := gOffsets(); f.goid >= 0 {
		return *(*uint64)(unsafe.Add(getgp(), f.goid))
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

// creation is where the calling goroutine was created (function, file and
// line: the same in every run) and its parent's goroutine id.
func creation() (site string, parent uint64) {
	f := gOffsets()
	if f.gopc < 0 || f.parentGoid < 0 {
		return stackCreation()
	}
	g := getgp()
	pc := *(*uintptr)(unsafe.Add(g, f.gopc))
	parent = *(*uint64)(unsafe.Add(g, f.parentGoid))
	if s, ok := sites.Load(pc); ok {
		return s.(string), parent
	}
	site, parent = stackCreation()
	sites.Store(pc, site)
	return site, parent
}

// sites are the go statements' sites as stackCreation reads them, by the
// statement's pc (the g's gopc).
var sites sync.Map

// stackBufs are stackCreation's buffers: a goroutine's stack text, a few
// kilobytes.
var stackBufs = sync.Pool{New: func() any { b := make([]byte, 16<<10); return &b }}

// stackCreation is creation read from the "created by F in goroutine N"
// lines at the end of the calling goroutine's stack.
func stackCreation() (site string, parent uint64) {
	bp := stackBufs.Get().(*[]byte)
	defer stackBufs.Put(bp)
	buf := *bp
	for {
		n := runtime.Stack(buf[:cap(buf)], false)
		if n < cap(buf) || cap(buf) >= 1<<20 {
			buf = buf[:n]
			break
		}
		buf = make([]byte, 2*cap(buf))
		*bp = buf
	}
	i := bytes.LastIndex(buf, []byte("\ncreated by "))
	if i < 0 {
		return "", 0
	}
	rest := buf[i+len("\ncreated by "):]
	line, rest, _ := bytes.Cut(rest, []byte("\n"))
	fn := line
	if j := bytes.LastIndex(line, []byte(" in goroutine ")); j >= 0 {
		fn = line[:j]
		parent, _ = strconv.ParseUint(string(bytes.TrimSpace(line[j+len(" in goroutine "):])), 10, 64)
	}
	loc, _, _ := bytes.Cut(bytes.TrimSpace(rest), []byte("\n"))
	if j := bytes.LastIndex(loc, []byte(" +0x")); j >= 0 {
		loc = loc[:j]
	}
	return string(fn) + " " + string(loc), parent
}

// gScan bounds the bytes of a g the calibration reads: the runtime's g is
// about 400 bytes (Go 1.26), these fields within its first 320.
const gScan = 320

// gFields are the offsets of the runtime g's goid, parentGoid and gopc
// fields, each -1 where not found.
type gFields struct{ goid, parentGoid, gopc int }

// gOffsets finds the fields once, from a chain of goroutines each started
// by the one before from one go statement of calibrateChain: goid is the one
// offset at which every goroutine's g holds its id as its stack header says
// it, parentGoid the one holding its creator's, gopc the one holding a pc
// in calibrateChain itself (the go statement's, not the started
// function's: startpc holds calibrateChain.func1). Two offsets that all hold, or none, leave that field
// unknown.
var gOffsets = sync.OnceValue(func() gFields {
	if getgp() == nil {
		return gFields{-1, -1, -1}
	}
	self, parent, pc := map[int]bool{}, map[int]bool{}, map[int]bool{}
	for off := 0; off+8 <= gScan; off += 8 {
		self[off], parent[off], pc[off] = true, true, true
	}
	calibrateChain(8, stackGoid(), self, parent, pc)
	one := func(set map[int]bool) int {
		if len(set) != 1 {
			return -1
		}
		for off := range set { // lint:order-independent one element
			return off
		}
		return -1
	}
	return gFields{goid: one(self), parentGoid: one(parent), gopc: one(pc)}
})

// calibrateChain starts a goroutine that narrows the offsets to those its
// g holds as goid, parentGoid (creator) and gopc, and starts the next, n
// deep; it returns when the chain has ended.
func calibrateChain(n int, creator uint64, self, parent, pc map[int]bool) {
	if n == 0 {
		return
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		id, g := stackGoid(), getgp()
		for off := range self { // lint:order-independent a set is narrowed
			if *(*uint64)(unsafe.Add(g, off)) != id {
				delete(self, off)
			}
		}
		for off := range parent { // lint:order-independent a set is narrowed
			if *(*uint64)(unsafe.Add(g, off)) != creator {
				delete(parent, off)
			}
		}
		for off := range pc { // lint:order-independent a set is narrowed
			f := runtime.FuncForPC(*(*uintptr)(unsafe.Add(g, off)))
			if f == nil || f.Name() != "github.com/ctrlsim/ctrlsim/sim/scheduler.calibrateChain" { // (startpc: its .func1)
				delete(pc, off)
			}
		}
		calibrateChain(n-1, id, self, parent, pc)
	}()
	<-done
}
