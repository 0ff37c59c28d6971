package search

import (
	"slices"
	"testing"
)

// What two runs' writes of one object differ in is told as fields, named as
// Options.Nondeterministic names them (through a list: the field of every
// item); a list whose items are the same in another order, as its order.
func TestTwoWritesDifferInFieldsOrInAListsOrder(t *testing.T) {
	for _, c := range []struct {
		name string
		a, b map[string]string
		want []string
	}{
		{"a text rendered in another order", map[string]string{"data.ports": `"a=1\nb=2"`}, map[string]string{"data.ports": `"b=2\na=1"`}, []string{"data.ports"}},
		{"a list in another order",
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "1", "spec.ports[1].name": `"b"`, "spec.ports[1].port": "2", "spec.selector.app": `"x"`},
			map[string]string{"spec.ports[0].name": `"b"`, "spec.ports[0].port": "2", "spec.ports[1].name": `"a"`, "spec.ports[1].port": "1", "spec.selector.app": `"x"`},
			[]string{"spec.ports (its order)"}},
		{"a list's item changed",
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "1"},
			map[string]string{"spec.ports[0].name": `"a"`, "spec.ports[0].port": "2"},
			[]string{"spec.ports.port"}},
		{"a field only one has", map[string]string{"status.token": `"x"`}, map[string]string{}, []string{"status.token"}},
	} {
		if got := differingFields(c.a, c.b); !slices.Equal(got, c.want) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
}
