package plan

import (
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// An API fault drawn from the reference run's requests opens its window just
// before the request it was drawn from, on that request's process (the
// template's Agent becomes process=), as an author's template's Agent does.
func TestAnAPIFaultOfTheReferenceRunIsAimedAtItsRequest(t *testing.T) {
	req := apiserver.Fault{Agent: "op", Verb: "update", Resource: "configmaps", Namespace: "shop", Name: "web", Code: 409, Count: 1}
	sp := Space{Processes: []string{"op"}, Classes: []FaultKind{API},
		APIFaults: []apiserver.Fault{{Agent: "op", Verb: "patch", Code: 500}},
		Targets: func(*Plan) Targets {
			return Targets{APIFaults: []APIFault{{At: 1500 * time.Millisecond, Fault: req}}}
		}}
	g := Generator(sp)
	var aimed, template int
	for i := range 200 {
		for _, f := range g.Example(i).Faults {
			if f.Kind != API || f.Process != "op" || f.API.Agent != "" {
				t.Fatalf("drew %s, want an api fault with process=op", f)
			}
			switch f.API.Verb {
			case "update":
				aimed++
				if f.From != 1499*time.Millisecond || f.Until <= f.From || f.API.Code != 409 || f.API.Count != 1 {
					t.Fatalf("drew %s, want the 409 of the update at 1.5s from 1.499s", f)
				}
			case "patch":
				template++
			}
		}
	}
	if aimed == 0 || template == 0 {
		t.Errorf("200 plans drew %d aimed and %d template API faults, want both", aimed, template)
	}
}
