package reference

// The internals the simple judge (simple_test.go) states its rules with.
var (
	LateStarts           = lateStarts
	LateStart            = lateStart
	RandomDerived        = randomDerived
	Agree                = agree
	ErrorWithoutWorkload = errorWithoutWorkload
)
