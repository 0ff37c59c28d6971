package catalog_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"reflect"
	"testing"

	testingclock "k8s.io/utils/clock/testing"

	"github.com/ctrlsim/ctrlsim/models/catalog"
)

// A bundle and a request name no channel, deprecation, priority, selector
// or skipRange, and a version with a pre-release or build part is refused.
func TestACatalogHasNoChannelsAndVersionsAreMajorMinorPatchOnly(t *testing.T) {
	for _, v := range []any{catalog.Bundle{}, catalog.Request{}} {
		ty := reflect.TypeOf(v)
		for _, name := range []string{"Channel", "Channels", "Deprecated", "Deprecation", "Priority", "Selector", "SkipRange"} {
			if _, ok := ty.FieldByName(name); ok {
				t.Errorf("%s has a field %s", ty, name)
			}
		}
	}
	for _, v := range []string{"1.0.0-rc.1", "1.0.0+build.5"} {
		if _, err := catalog.ParseRange(v); err == nil {
			t.Errorf("ParseRange(%q) accepted a pre-release or build version", v)
		}
	}
}

// A catalog is built on a clock alone, with no client: a publication is
// seen by Resolve at once and writes no object a controller could watch.
func TestAPublicationIsSeenWithNoClusterObjectChanged(t *testing.T) {
	clk := testingclock.NewFakeClock(epoch)
	c := catalog.New(clk, bundle("1.0.0"))
	c.Publish(bundle("2.0.0", "1.0.0"))
	if b, err := c.Resolve(catalog.Request{Package: "op"}); err != nil || b.Version != "2.0.0" {
		t.Fatalf("Resolve after Publish = %s, %v; want 2.0.0", b.Version, err)
	}
	if n := reflect.TypeOf(catalog.New).NumIn(); n != 2 {
		t.Fatalf("catalog.New takes %d parameters, want the clock and the bundles only", n)
	}
}

// Masterminds' ranges with "||", "~", "^" or wildcards are refused.
func TestMastermindsRangeSyntaxIsNotParsed(t *testing.T) {
	for _, r := range []string{"1.0.0 || 2.0.0", "~1.2.0", "^1.0.0", "1.x", "1.2.*", "*"} {
		if _, err := catalog.ParseRange(r); err == nil {
			t.Errorf("ParseRange(%q) parsed", r)
		}
	}
	if _, err := catalog.ParseRange(">=1.0.0 <2.0.0"); err != nil {
		t.Errorf("ParseRange of an AND of comparisons: %v", err)
	}
}
