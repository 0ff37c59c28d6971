//go:build darwin || dragonfly || freebsd || linux || netbsd || openbsd

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// locks says that lockSlot takes a lock.
const locks = true

// lockSlot takes the exclusive lock of the command's directory dir
// (flock(2) on dir/lockFile, which the kernel releases when the process
// ends, by exec too: the file is opened close-on-exec). When another
// launcher holds it, it calls wait, waits for it, and calls the function
// wait returned. unlock releases it.
func lockSlot(dir string, wait func() (over func())) (unlock func(), err error) {
	f, err := os.OpenFile(filepath.Join(dir, lockFile), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	fd := int(f.Fd())
	err = flock(fd, syscall.LOCK_EX|syscall.LOCK_NB)
	if errors.Is(err, syscall.EWOULDBLOCK) {
		over := wait()
		err = flock(fd, syscall.LOCK_EX)
		over()
	}
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("locking %s: %v", f.Name(), err)
	}
	return func() { f.Close() }, nil
}

func flock(fd, how int) error {
	for {
		if err := syscall.Flock(fd, how); !errors.Is(err, syscall.EINTR) {
			return err
		}
	}
}
