package fuzz

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

func TestAnEntryCaughtInEveryVariantHasNothingToFuzz(t *testing.T) {
	caught := &catalogue.Entry{ID: "x/caught", Expect: map[variant.Variant]catalogue.Outcome{
		variant.Buggy: catalogue.Caught, variant.Fixed: catalogue.Caught}}
	if vs, err := holdingVariants(caught); err == nil || !strings.Contains(err.Error(), "nothing to fuzz") {
		t.Errorf("an entry caught in every variant: %v, %v; want nothing to fuzz", vs, err)
	}
	mixed := &catalogue.Entry{ID: "x/mixed", Expect: map[variant.Variant]catalogue.Outcome{
		variant.Buggy: catalogue.Caught, variant.Robust: catalogue.Holds}}
	if vs, err := holdingVariants(mixed); err != nil || !slices.Equal(vs, []variant.Variant{variant.Robust}) {
		t.Errorf("an entry whose robust variant holds: %v, %v; want [robust]", vs, err)
	}
}

func TestAFuzzInputDecodesToAPlanNotAWorld(t *testing.T) {
	// search.FuzzTarget draws a *plan.Plan from the input and runs it in the
	// one world its Options made: a plan's fields are all there is to vary.
	var fields []string
	for f := range reflect.TypeFor[plan.Plan]().Fields() {
		fields = append(fields, f.Name)
	}
	if want := []string{"Seed", "Steps", "Faults"}; !slices.Equal(fields, want) {
		t.Errorf("a plan's fields are %v, want %v (no seed object among them)", fields, want)
	}
}
