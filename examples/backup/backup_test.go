package backup_test

import (
	"os"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/backup"
	"github.com/ctrlsim/ctrlsim/internal/long"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/search"
)

var scheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, backup.AddToScheme} {
		if err := add(s); err != nil {
			panic(err)
		}
	}
	return s
}()

// options are the whole of what the operator's test gives: its CRD, its
// manager and a seed Backup; everything else is operatortest's default.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{backup.CRD},
		Managers: []operatortest.Manager{{Name: "backup", Setup: func(mgr manager.Manager) error {
			return (&backup.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&backup.Backup{TypeMeta: metav1.TypeMeta{APIVersion: backup.GroupVersion.String(), Kind: "Backup"},
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db"}}},
	}
}

// The buggy operator's two Jobs for one slot are caught with default
// Options within their 100 plans: its first write comes after the first
// minute, and the default fault phase follows its writes (package
// search's phase.go), so the sweep's crashes after a write aim at the
// Job's create.
func TestTwoJobsForOneSlotAreCaughtByDefault(t *testing.T) {
	res, err := operatortest.Explore(t, options(true))
	if err != nil {
		t.Fatal(err)
	}
	var f *search.Finding
	for i := range res.Findings {
		if !res.Findings[i].NoFault {
			f = &res.Findings[i]
			break
		}
	}
	if f == nil {
		t.Fatalf("the buggy operator held %d plans (%s): want its second Job for one slot caught", res.Checks, search.CoverageLine(res.Targeted))
	}
	t.Logf("caught at plan %d (%s): %s; plan:\n%s", f.FirstFailure, f.Signature, f.Violations[0].Detail, f.Minimal)
	if f.FirstFailure > 100 || f.Violations[0].Property != operatortest.Converges {
		t.Errorf("caught at plan %d by %s, want converges within the default 100 plans", f.FirstFailure, f.Violations[0].Property)
	}
}

// A fault phase the test sets is its own: set to the first minute, which
// ends before the operator's first write, the crashes after a write and
// the error answers find no target, and the result says so in one line
// naming the option that moves it.
func TestAFaultPhaseThatEndsBeforeTheFirstWriteSaysSo(t *testing.T) {
	o := options(true)
	o.FaultPhase, o.Checks, o.Workers = time.Minute, 2, 1
	res, err := operatortest.Explore(t, o)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"no target inside the fault phase (1m0s) for the targeted crashes after a write, error answers to a write", "Options.FaultPhase moves it"} {
		if !strings.Contains(res.Unaimed, want) {
			t.Errorf("Result.Unaimed is %q, want it to say %q", res.Unaimed, want)
		}
	}
}

// The correct operator, its Jobs named by their slot, holds the default
// budget of 100 plans (1,000 in make long; package internal/long).
func TestTheCorrectOperatorHolds(t *testing.T) {
	o := options(false)
	o.Checks = long.Pick(100, 1000)
	operatortest.Run(t, o)
}

// The buggy operator fails its test: run it to see the report.
func TestTheBuggyOperator(t *testing.T) {
	if os.Getenv("CTRLSIM_BACKUP") == "" {
		t.Skip("fails on purpose; CTRLSIM_BACKUP=1 to see its report")
	}
	operatortest.Run(t, options(true))
}
