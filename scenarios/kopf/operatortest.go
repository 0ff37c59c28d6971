package kopf

import (
	"context"
	_ "embed"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

//go:embed crd.yaml
var crdYAML []byte

// Persistent422 is the kopf/persistent-422 entry written as an operatortest
// test of v's operator: KopfExamples x and y, spec edits of
// either as a domain step, and the entry's fault profile (a 422 window on
// x's or every KopfExample's PATCH, informer lag of KopfExamples, crashes),
// judged by bounded-retry-rate beside the generic oracles.
func Persistent422(v variant.Variant) operatortest.Options {
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   [][]byte{crdYAML},
		Managers: []operatortest.Manager{{Name: Operator, Setup: func(mgr manager.Manager) error {
			r := &kopfop.Reconciler{Client: mgr.GetClient(), Variant: v, Exit: exitOf(mgr), Clock: catalogue.ClockOf(mgr),
				Handlers: []kopfop.Handler{kopfop.ReportHandler(mgr.GetClient(), mgr.GetAPIReader())}}
			return r.SetupWithManager(mgr)
		}}},
		Objects: []client.Object{example("x"), example("y")},
		Workload: operatortest.Workload{
			Steps: []operatortest.StepKind{}, // only the domain's edits: kopf diffs spec.field
			Domain: []operatortest.DomainStep{{
				Name: "edit",
				Params: []operatortest.Param{
					{Key: "name", Values: []string{"x", "y"}},
					{Key: "field", Values: []string{"e0", "e1", "e2"}},
				},
				Within: 15 * time.Second,
				Max:    3,
				Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
					var k kopfop.KopfExample
					if err := env.Client.Get(ctx, types.NamespacedName{Namespace: Namespace, Name: a.Get("name")}, &k); err != nil {
						return err
					}
					k.Spec.Field = a.Get("field")
					return env.Client.Update(ctx, &k)
				},
			}},
		},
		Faults: operatortest.Faults{
			Classes: []plan.FaultKind{plan.API, plan.Lag, plan.Crash},
			Kinds:   []schema.GroupVersionKind{kopfop.KopfExampleGVK},
			API:     patch422,
			MaxLag:  time.Second,
		},
		Properties: []operatortest.Property{world.FromCheck(RetryRate{})},
		// The example handler counts its runs, and kopf runs a handler at
		// least once: a crash between the handler's status write and kopf's
		// progress PATCH runs it again after the restart. The count is the
		// run's history, not a state the operator converges to.
		Nondeterministic: []operatortest.NondeterministicField{{Kind: "KopfExample", Path: "status.handlerRuns"}},
		FaultPhase:       20 * time.Second,
	}
}

func example(name string) *kopfop.KopfExample {
	return &kopfop.KopfExample{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: name},
		Spec:       kopfop.KopfExampleSpec{Field: "a"},
	}
}

// exitOf is the process's exit for the fixed variant's unrecoverable
// errors (kopf #509), as os.Exit ends a real operator's pod.
func exitOf(mgr manager.Manager) func(int) {
	if e, ok := mgr.(interface{ Exit(code int) }); ok {
		return e.Exit
	}
	return nil
}
