package main

import "io"

func cmdBench(args []string, stdout io.Writer) error {
	return usagef("not built yet: figures come with the performance issue (8)")
}
