package long

import "os"

// Variable is the environment variable make long sets to 1.
const Variable = "CTRLSIM_LONG"

// Enabled reports whether the test runs its long form: CTRLSIM_LONG=1 (make
// long), or CTRLSIM_TWIN=1000 (the name of the 1,000-plan runs before it).
func Enabled() bool { return os.Getenv(Variable) == "1" || os.Getenv("CTRLSIM_TWIN") == "1000" }

// Pick is short in make test's form and long in the long form.
func Pick[T any](short, long T) T {
	if Enabled() {
		return long
	}
	return short
}
