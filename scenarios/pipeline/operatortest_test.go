package pipeline

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// property the kernel entry names.
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"pipeline/self-status-race/buggy":     "at-most-once",
		"pipeline/app-event-race/buggy":       "at-most-once",
		"pipeline/app-event-race/fixed":       "at-most-once",
		"pipeline/promotion-fails-once/buggy": "at-most-once",
		"pipeline/promotion-fails-once/fixed": "retried-after-failure",
		"pipeline/crash-after-promote/buggy":  "at-most-once",
		"pipeline/crash-after-promote/fixed":  "at-most-once",
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}
