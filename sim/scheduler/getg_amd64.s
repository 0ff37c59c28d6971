#include "textflag.h"

// func getg() uintptr: the running goroutine's g, from its TLS slot.
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET

// func getgp() unsafe.Pointer: the same g, as a pointer (goid.go).
TEXT ·getgp(SB),NOSPLIT,$0-8
	MOVQ (TLS), AX
	MOVQ AX, ret+0(FP)
	RET
