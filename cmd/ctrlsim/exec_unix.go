//go:build unix

package main

import (
	"fmt"
	"os"
	"syscall"
)

// execCommand runs bin with args in this process's place.
func execCommand(bin string, args []string) int {
	err := syscall.Exec(bin, append([]string{"ctrlsim"}, args...), os.Environ())
	fmt.Fprintf(os.Stderr, "ctrlsim: running %s: %v\n", bin, err)
	return 1
}
