package noopstatus_test

import (
	"fmt"
	"os"
	"strings"

	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/noopstatus"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, noopstatus.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// options are the whole of what the operator's test gives: its CRD, its
// manager and a seed App; everything else is operatortest's default.
func options(noop, crash bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{noopstatus.CRD},
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&noopstatus.Reconciler{Client: mgr.GetClient(), NoopStatus: noop, CrashBug: crash}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&noopstatus.App{TypeMeta: metav1.TypeMeta{APIVersion: noopstatus.GroupVersion.String(), Kind: "App"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"}, Spec: noopstatus.AppSpec{Image: "web:1"}}},
	}
}

// One default exploration of the operator with both bugs reports both: the
// no-op status writes at rest first, as a finding with no fault at all
// (plan 0: the fault-free run shows it), and then, since that finding
// hides nothing, the crash between the two creates at the targeted plan
// that crashes the operator right after the first.
func TestBothBugsAreReportedByOneRun(t *testing.T) {
	res, err := operatortest.Explore(t, options(true, true))
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range res.Findings {
		t.Logf("%s (no fault: %v) at plan %d, also %q; plan:\n%s", f.Signature, f.NoFault, f.FirstFailure, f.Also, f.Minimal)
	}
	if len(res.Findings) != 2 {
		t.Fatalf("%d findings, want the no-op status writes and the crash between writes", len(res.Findings))
	}
	noop, crash := res.Findings[0], res.Findings[1]
	if !noop.NoFault || noop.FirstFailure != 0 || len(noop.Minimal.Faults) != 0 || noop.Violations[0].Property != operatortest.WritesAtRest {
		t.Errorf("the first finding is %s at plan %d (no fault: %v), want writes-at-rest with no fault at all (plan 0)", noop.Signature, noop.FirstFailure, noop.NoFault)
	}
	if crash.NoFault || crash.FirstFailure == 0 || len(crash.Minimal.Faults) == 0 || crash.Signature != "converges ConfigMap" {
		t.Errorf("the second finding is %s at plan %d (no fault: %v), want converges ConfigMap at a plan with a fault", crash.Signature, crash.FirstFailure, crash.NoFault)
	}
	if !res.Caught || res.Checks != crash.FirstFailure {
		t.Errorf("Result: caught %v after %d plans, want the plans to the finding that needs a fault (%d)", res.Caught, res.Checks, crash.FirstFailure)
	}
}

// With KeepGoing the two bugs stay two findings: the write at rest is the
// App's status and the crash's run first departs from its fault-free run
// at the second ConfigMap, another object (a write at rest is one root
// cause with a departure at the object it writes only: the search
// package's doc).
func TestKeepGoingReportsBothBugsApart(t *testing.T) {
	o := options(true, true)
	o.KeepGoing = true
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range res.Findings {
		got = append(got, fmt.Sprintf("%s (no fault: %v; also: %q)", f.Signature, f.NoFault, f.Also))
	}
	if len(got) != 2 || !strings.HasPrefix(got[0], "writes-at-rest App (no fault: true; also: []") || !strings.HasPrefix(got[1], "converges ConfigMap (no fault: false; also: []") {
		t.Errorf("findings %q, want the no-op status writes with no fault, then the crash between writes, each alone", got)
	}
}

// With the crash bug fixed, the no-op writes are the one finding, and the
// exploration still runs its whole budget looking for one that needs a
// fault.
func TestANoFaultFindingAloneDoesNotEndTheSearch(t *testing.T) {
	o := options(true, false)
	o.Checks = 40
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Findings) != 1 || !res.Findings[0].NoFault || res.Checks != 40 {
		t.Fatalf("%d findings after %d plans, want the no-op status writes alone, with no fault, after all 40 plans: %+v", len(res.Findings), res.Checks, res.Findings)
	}
}

// The fixed operator holds.
func TestTheFixedOperatorHolds(t *testing.T) {
	operatortest.Run(t, options(false, false))
}

// The operator with both bugs fails its test with both reports: run it to
// see them (the no-fault finding's first).
func TestTheBuggyOperator(t *testing.T) {
	if os.Getenv("CTRLSIM_NOOPSTATUS") == "" {
		t.Skip("fails on purpose; CTRLSIM_NOOPSTATUS=1 to see its reports")
	}
	operatortest.Run(t, options(true, true))
}
