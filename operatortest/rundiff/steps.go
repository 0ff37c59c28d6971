package rundiff

import (
	"fmt"
	"slices"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// Steps says where the traces of two runs of one plan (a, the exploring
// run's, b, the replay's) first differ, and whose step it is: an operator's write whose content differs (the operator
// itself is nondeterministic: a Go map ranged over to build a list, an
// unseeded random value), an operator's log line, or a step of the world's
// own (a determinism bug of ctrlsim). said: the operator's nondeterminism is
// said elsewhere (once, at the test's end), and a differing write names
// where only.
func Steps(a, b []trace.Step, operators []string, said bool) string {
	n := max(len(a), len(b))
	for i := 0; i < n; i++ {
		if i < len(a) && i < len(b) && a[i].Canonical() == b[i].Canonical() {
			continue
		}
		if i >= len(a) || i >= len(b) {
			return fmt.Sprintf("the runs agree for %d steps, then one ends (step %d): a determinism bug of ctrlsim, or of the operator's timing", min(len(a), len(b)), i)
		}
		sa, sb := a[i], b[i]
		where := fmt.Sprintf("first differing step %d:\n  exploring: %s\n  replaying: %s", i, sa.Canonical(), sb.Canonical())
		same := sa
		same.Digest, same.Result = sb.Digest, sb.Result
		switch {
		case slices.Contains(operators, sa.Process) && same.Canonical() == sb.Canonical() && sa.Digest != sb.Digest:
			if said {
				return fmt.Sprintf("the operator's own nondeterminism, said at the end: process %s wrote different content to %s at the same step of two runs of the same plan, %s", sa.Process, sa.Object, where)
			}
			return fmt.Sprintf("the operator itself is nondeterministic: process %s wrote different content to %s at the same step of two runs of the same plan (a list built by ranging over a Go map, an unseeded random value, a wall-clock reading), %s",
				sa.Process, sa.Object, where)
		case slices.Contains(operators, sa.Process) && sa.Op == "log" && sb.Op == "log":
			return fmt.Sprintf("the operator logged different values at the same step of two runs of the same plan (the operator itself is nondeterministic, or a value ctrlsim should keep out of the hash), %s", where)
		case slices.Contains(operators, sa.Process) && same.Canonical() == sb.Canonical():
			return fmt.Sprintf("the operator's call at the same step of two runs of the same plan had different results (the operator itself is nondeterministic, or ctrlsim is), %s", where)
		}
		return fmt.Sprintf("the runs differ in a step of the world's own or in its order (a determinism bug of ctrlsim, or the operator's behaviour differed before it without a trace), %s", where)
	}
	return "the kept steps agree (the hashes differ in what the steps do not keep)"
}
