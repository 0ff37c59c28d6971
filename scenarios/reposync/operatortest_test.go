package reposync

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// deletion-completes property.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"reposync/namespace-deleted/buggy":             PropDeletionCompletes,
		"reposync/namespace-deleted-stale-cache/buggy": PropDeletionCompletes,
		"reposync/namespace-deleted-stale-cache/fixed": PropDeletionCompletes,
		"reposync/rolebinding-revoked/buggy":           PropDeletionCompletes,
		"reposync/rolebinding-revoked/fixed":           PropDeletionCompletes,
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}
