#include "textflag.h"

// func getg() uintptr: the running goroutine's g, from register g (R28).
TEXT ·getg(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET

// func getgp() unsafe.Pointer: the same g, as a pointer (goid.go).
TEXT ·getgp(SB),NOSPLIT,$0-8
	MOVD g, R0
	MOVD R0, ret+0(FP)
	RET
