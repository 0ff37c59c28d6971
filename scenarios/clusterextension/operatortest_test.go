package clusterextension

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// property the kernel entry names.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"helm/interrupted-install/buggy":             PropReleaseSettles,
		"helm/interrupted-upgrade/buggy":             PropReleaseSettles,
		"helm/interrupted-upgrade-new-version/buggy": PropReleaseSettles,
		"helm/interrupted-upgrade-new-version/fixed": PropNoVersionSkip,
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}
