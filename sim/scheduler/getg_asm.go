//go:build amd64 || arm64

package scheduler

import "unsafe"

// getg is the calling goroutine's runtime g: an identity that no other live
// goroutine shares, read in a nanosecond (goid prints a stack header, which
// costs microseconds). It may be reused by a goroutine started after this one
// ends, so it is only compared with the g of a goroutine known to be alive
// (the one the scheduler runs).
func getg() uintptr

// getgp is getg as a pointer, to read the g's goid field (goid.go).
func getgp() unsafe.Pointer
