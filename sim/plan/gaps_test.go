package plan_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A step is a name and string arguments: nothing in a plan says which
// scenario its actions belong to.
func TestAnActionIsANameWithStringArguments(t *testing.T) {
	typ := reflect.TypeFor[plan.Step]()
	var fields []string
	for i := range typ.NumField() {
		fields = append(fields, typ.Field(i).Name+" "+typ.Field(i).Type.String())
	}
	if want := []string{"At time.Duration", "Action string", "Args plan.Args", "Script bool"}; !slices.Equal(fields, want) {
		t.Errorf("Step's fields are %v, want %v", fields, want)
	}
	if typ := reflect.TypeFor[plan.Arg](); typ.NumField() != 2 || typ.Field(1).Type.Kind() != reflect.String {
		t.Errorf("Arg is %v, want a key and a string value", typ)
	}
	if fields := reflect.TypeFor[plan.Plan]().NumField(); fields != 3 {
		t.Errorf("Plan has %d fields, want 3 (seed, steps, faults; no scenario)", fields)
	}
}

func TestThereIsNoMessageLossOrClockSkewFault(t *testing.T) {
	for _, line := range []string{"drop process=op kind=/v1/Pod", "loss process=op kind=/v1/Pod", "skew process=op by=1s"} {
		_, err := plan.Parse("seed 1\n" + line + "\n")
		if err == nil || !strings.Contains(err.Error(), "unknown line kind") {
			t.Errorf("%q: %v, want an unknown line kind", line, err)
		}
	}
}

func TestDurationsPrintInGosFormatAndParseInAnyOfIt(t *testing.T) {
	p, err := plan.Parse("seed 1\nlag process=op kind=/v1/Pod min=0.025h max=5400000ms\n")
	if err != nil {
		t.Fatal(err)
	}
	if f := p.Faults[0]; f.Min != 90*time.Second || f.Max != 90*time.Minute {
		t.Fatalf("read as %+v", f)
	}
	if got, want := p.String(), "seed 1\nlag process=op kind=/v1/Pod min=1m30s max=1h30m0s\n"; got != want {
		t.Fatalf("prints as %q, want %q", got, want)
	}
}

func TestAStaleFaultScopesToOneKindOrEveryKind(t *testing.T) {
	for _, line := range []string{
		"stale process=op kind=/v1/Pod,/v1/Secret at=1s age=1s",       // a set of kinds
		"stale process=op kind=/v1/Pod object=default/x at=1s age=1s", // one object
	} {
		if _, err := plan.Parse("seed 1\n" + line + "\n"); err == nil {
			t.Errorf("%q parsed", line)
		}
	}
	for _, line := range []string{"stale process=op at=1s age=1s", "stale process=op kind=/v1/Pod at=1s age=1s"} {
		if _, err := plan.Parse("seed 1\n" + line + "\n"); err != nil {
			t.Errorf("%q: %v", line, err)
		}
	}
}

func TestAnUnobservedFaultNamesAProcessNotAController(t *testing.T) {
	line := "unobserved process=op controller=c kind=/v1/Pod object=default/x"
	if _, err := plan.Parse("seed 1\n" + line + "\n"); err == nil {
		t.Errorf("%q parsed", line)
	}
}
