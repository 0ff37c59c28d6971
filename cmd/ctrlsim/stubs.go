package main

import "io"

func cmdCatalogue(args []string, stdout io.Writer) error {
	return usagef("not built yet: reports/ comes with the catalogue issue (6)")
}

func cmdBench(args []string, stdout io.Writer) error {
	return usagef("not built yet: figures come with the performance issue (8)")
}
