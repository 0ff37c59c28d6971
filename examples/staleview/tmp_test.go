package staleview_test

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestTmpBuggy1000(t *testing.T) {
	o := options(true)
	o.Checks = 1000
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("caught=%v checks=%d %v\n%s", res.Caught, res.Checks, res.Violations, res.Minimal)
}
