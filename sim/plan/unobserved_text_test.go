package plan_test

import (
	"reflect"
	"testing"

	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// An unobserved fault's line names the process, the kind, the object and its
// window by resourceVersion (from=0: from the object's creation; until=0:
// until its deletion or the heal), and parses back to the same fault.
func TestAnUnobservedFaultParsesBackToTheSameFault(t *testing.T) {
	text := "seed 3\nunobserved process=op kind=example.com/v1/Cluster object=default/c from=0 until=0\n" +
		"unobserved process=op kind=/v1/Namespace object=team-a from=41 until=57\n"
	p, err := plan.Parse(text)
	if err != nil {
		t.Fatal(err)
	}
	want := []plan.Fault{
		{Kind: plan.Unobserved, Process: "op", Resource: "example.com/v1/Cluster", Object: "default/c"},
		{Kind: plan.Unobserved, Process: "op", Resource: "/v1/Namespace", Object: "team-a", FromRev: 41, UntilRev: 57},
	}
	if !reflect.DeepEqual(p.Faults, want) {
		t.Fatalf("read as %+v, want %+v", p.Faults, want)
	}
	if got := p.String(); got != text {
		t.Fatalf("prints back as %q, want %q", got, text)
	}
	rapid.Check(t, func(t *rapid.T) {
		f := plan.Fault{Kind: plan.Unobserved,
			Process:  rapid.SampledFrom([]string{"op", "my op"}).Draw(t, "process"),
			Resource: rapid.SampledFrom([]string{"/v1/Pod", "apps/v1/StatefulSet"}).Draw(t, "kind"),
			Object:   rapid.StringMatching(`([a-z]{1,3}/)?[a-z.=" ]{1,5}`).Draw(t, "object"),
			FromRev:  rapid.Uint64Range(0, 1000).Draw(t, "from")}
		if rapid.Bool().Draw(t, "until") {
			f.UntilRev = f.FromRev + 1 + rapid.Uint64Range(0, 1000).Draw(t, "length")
		}
		line := "seed 1\n" + f.String() + "\n"
		q, err := plan.Parse(line)
		if err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if !reflect.DeepEqual(q.Faults, []plan.Fault{f}) {
			t.Fatalf("%q read as %+v", line, q.Faults[0])
		}
	})
	for _, bad := range []string{
		"unobserved process=op kind=Pod object=default/x",            // not group/version/Kind
		"unobserved process=op kind=* object=default/x",              // one kind
		"unobserved process=op kind=/v1/Pod",                         // no object
		"unobserved kind=/v1/Pod object=default/x",                   // no process
		"unobserved process=op kind=/v1/Pod object=a/b/c",            // not namespace/name
		"unobserved process=op kind=/v1/Pod object=x from=9 until=9", // an empty window
		"unobserved process=op kind=/v1/Pod object=x from=1s",        // a time, not a resourceVersion
		"unobserved process=op kind=/v1/Pod object=x at=1s",          // no such key
	} {
		if _, err := plan.Parse("seed 1\n" + bad + "\n"); err == nil {
			t.Errorf("%q parsed", bad)
		} else {
			t.Logf("%s: %v", bad, err)
		}
	}
}
