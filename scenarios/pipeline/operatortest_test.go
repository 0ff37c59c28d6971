package pipeline

import (
	"strings"
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

// OnOperatortest replaces exactly the four kernel entries, each with its
// kernel entry's expectations and an operatortest Test, and no kernel world
// left to run by mistake.
func TestOnOperatortestReplacesTheFourKernelEntries(t *testing.T) {
	var ids []string
	for i, e := range OnOperatortest() {
		k := Entries()[i]
		ids = append(ids, e.ID)
		if e.ID != k.ID || e.Test == nil || e.World != nil || e.Properties != nil || len(e.Expect) != 3 || e.Summary != k.Summary {
			t.Errorf("%s: want the kernel entry's ID, Summary and Expect with Test set and no World or Properties", e.ID)
		}
	}
	if got, want := strings.Join(ids, " "), "pipeline/self-status-race pipeline/app-event-race pipeline/promotion-fails-once pipeline/crash-after-promote"; got != want {
		t.Errorf("OnOperatortest: %s, want %s", got, want)
	}
}
