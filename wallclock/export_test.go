package wallclock

// Census is the census of the calling goroutine's bubble, for the tests: the
// line Run would say of its goroutines were the world closed now ("" for
// none), and the function that started each goroutine of the bubble.
func Census() (line string, startedBy []string) {
	_, gs := bubbleGoroutines()
	for _, g := range gs {
		startedBy = append(startedBy, g.createdBy.fn)
	}
	line, _ = abandonedLine(gs)
	return line, startedBy
}
