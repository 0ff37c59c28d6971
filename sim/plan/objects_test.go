package plan_test

import (
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A plan may name a seed object by kind and name or by index: the two forms
// read back to the same plan, and the name form is what a failure prints.
func TestAPlanNamesSeedObjectsByKindAndName(t *testing.T) {
	names := []string{plan.ObjectName("ConfigMap", "default", "x"), plan.ObjectName("Namespace", "", "team-a")}
	if names[0] != "ConfigMap/default/x" || names[1] != "Namespace/team-a" {
		t.Fatalf("names %q", names)
	}
	indexed, err := plan.Parse("seed 3\nat 2ms delete object=0\nat 3ms touch object=1 field=spec.x\n")
	if err != nil {
		t.Fatal(err)
	}
	named := plan.NameObjects(indexed, names)
	want := "seed 3\nat 2ms delete object=ConfigMap/default/x\nat 3ms touch object=Namespace/team-a field=spec.x\n"
	if got := named.String(); got != want {
		t.Errorf("named:\n%s\nwant\n%s", got, want)
	}
	if indexed.String() != "seed 3\nat 2ms delete object=0\nat 3ms touch object=1 field=spec.x\n" {
		t.Errorf("NameObjects changed its input: %s", indexed.String())
	}
	parsed, err := plan.Parse(named.String())
	if err != nil {
		t.Fatal(err)
	}
	back, err := plan.IndexObjects(parsed, names)
	if err != nil {
		t.Fatal(err)
	}
	if back.String() != indexed.String() {
		t.Errorf("the name form read back:\n%s\nwant\n%s", back.String(), indexed.String())
	}
	// Both forms in one plan, and an index, still parse.
	mixed, _ := plan.Parse("seed 3\nat 2ms delete object=1\nat 3ms delete object=ConfigMap/default/x\n")
	if m, err := plan.IndexObjects(mixed, names); err != nil || m.String() != "seed 3\nat 2ms delete object=1\nat 3ms delete object=0\n" {
		t.Errorf("mixed forms: %v, %v", m, err)
	}
	for _, c := range []struct{ value, says string }{
		{"2", "want 0..1"},
		{"x", "did you mean ConfigMap/default/x"},
		{"Secret/default/x", "the seed objects: ConfigMap/default/x, Namespace/team-a"},
	} {
		if _, err := plan.ObjectIndex(c.value, names); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("ObjectIndex(%q): %v, want an error saying %q", c.value, err, c.says)
		}
	}
}
