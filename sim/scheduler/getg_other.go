//go:build !amd64 && !arm64

package scheduler

import "unsafe"

// getg is the calling goroutine's identity (see getg_asm.go); on this
// architecture its goroutine id, at the cost of a stack header print.
func getg() uintptr { return uintptr(stackGoid()) }

// getgp is not available on this architecture: goid reads stack headers.
func getgp() unsafe.Pointer { return nil }
