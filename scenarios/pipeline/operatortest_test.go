package pipeline

import (
	"testing"

	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Each port keeps its entry's expectations on operatortest
// (catalogue.TestPorts): a variant expected caught is caught by the
// property the kernel entry names. promotion-fails-once's buggy controller
// has two bugs, and its plan 0 meets both: it retries a failed promotion
// only by accident, so one workload's fault-free run never retries
// (retried-after-failure) and another's promotes twice (at-most-once).
func TestThePortsKeepTheirExpectations(t *testing.T) {
	caughtBy := map[string]string{
		"pipeline/self-status-race/buggy":     "at-most-once",
		"pipeline/app-event-race/buggy":       "at-most-once",
		"pipeline/app-event-race/fixed":       "at-most-once",
		"pipeline/promotion-fails-once/buggy": "at-most-once,retried-after-failure",
		"pipeline/promotion-fails-once/fixed": "retried-after-failure",
		"pipeline/crash-after-promote/buggy":  "at-most-once",
		"pipeline/crash-after-promote/fixed":  "at-most-once",
	}
	catalogue.TestPorts(t, OnOperatortest(), caughtBy)
}
