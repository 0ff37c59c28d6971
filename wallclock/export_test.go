package wallclock

// Census is the census of the calling goroutine's bubble, for the tests: the
// line Run would fail with for a client-go workqueue ("" for none), and the
// function that started each goroutine of the bubble.
func Census() (line string, startedBy []string) {
	id, gs := bubbleGoroutines()
	for _, g := range gs {
		startedBy = append(startedBy, g.createdBy.fn)
	}
	return workqueueLine(id, gs), startedBy
}
