package bundledeployment

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// property the kernel entry names.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"bd/terminating-cleanup/buggy":         "root-cause-visible",
		"bd/slow-cleanup/buggy":                "root-cause-visible",
		"bd/slow-cleanup/fixed":                "root-cause-visible",
		"bd/rollback-leaves-terminating/buggy": "root-cause-visible",
		"bd/rollback-leaves-terminating/fixed": "root-cause-visible",
		"bd/blocked-workers/fixed":             "bounded-queue-wait",
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}
