// Package canary is the canary entry of the catalogue: controllers/canary under
// informer lag and holds. Its buggy variant must be caught on every run, so that a
// broken pipeline that catches nothing is noticed (TigerBeetle's canary fuzzer).
//
// Test is the same operator as an operatortest test (the manager, one parent
// ConfigMap, at-most-once as an operatortest.Property), and OnOperatortest the
// entry written with it: the port to the one engine, which the
// catalogue (scenarios.All) runs in place of Entries().
//
// # Known gaps
//
// One parent object and one process: enough to catch the canary, not a model of
// any real operator.
package canary

import (
	"fmt"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/controllers/canary"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// OneChild is the canary's property: the parent never has two children.
var OneChild = check.Eventually{Property: "at-most-once", Desired: func(r *check.Run) error {
	if n := len(r.Objects(corev1.SchemeGroupVersion.WithKind("Secret"))); n > 1 {
		return fmt.Errorf("parent default/app has %d child Secrets", n)
	}
	return nil
}}

// scheme is client-go's with apiextensions (operatortest serves CRDs in every
// world): built once, shared by every run.
var scheme = sync.OnceValue(func() *runtime.Scheme { return catalogue.NewScheme(apiextensionsv1.AddToScheme) })

// Test is the canary of variant v as an operatortest test: the manager "op",
// the parent ConfigMap default/app, and the property at-most-once, over
// operatortest's faults and workload (the parent deleted and re-created)
// and generic oracles. The workload models (kubelet, Deployments) are left
// out: the canary makes none of their kinds.
func Test(v variant.Variant) operatortest.Options {
	return operatortest.Options{
		Scheme: scheme(),
		Managers: []operatortest.Manager{{Name: "op", Setup: func(mgr manager.Manager) error {
			return (&canary.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Variant: v}).SetupWithManager(mgr)
		}}},
		Objects: []client.Object{&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
			Namespace: "default", Name: "app", Labels: map[string]string{canary.ParentLabel: "yes"}}}},
		Properties:       []operatortest.Property{world.FromCheck(OneChild)},
		NoWorkloadModels: true,
		FaultPhase:       time.Minute,
		HealBudget:       time.Minute,
	}
}

// Entries are the canary's catalogue entries: one.
func Entries() []*catalogue.Entry {
	return []*catalogue.Entry{{
		ID:       "canary/stale-cache",
		Seed:     "canary",
		Upstream: "",
		Summary: "A controller creates a child Secret whenever its informer cache does not show one yet. " +
			"When the Secret cache lags behind the ConfigMap cache, the event of its own status write arrives first, " +
			"the next reconcile sees no child, and it creates a second one.\n\n" +
			"The canary is wrong on purpose: the harness must catch its buggy variant on every run. " +
			"The fixed variant names the child after the parent (a second Create fails with AlreadyExists); " +
			"the robust variant also lists children with the API reader.",
		Expect: map[variant.Variant]catalogue.Outcome{variant.Buggy: catalogue.Caught, variant.Fixed: catalogue.Holds, variant.Robust: catalogue.Holds},
		Why: "Checks to find were 7 in catalogues generated before the sweep aimed at more than the script alone; they are 13 now, " +
			"with the same minimal plan and the same trace (hash `c62326d2...` above). The sweep now runs the targeted plans of two " +
			"workloads, taken in turn: the script alone (the seed ConfigMap) and the script with the ConfigMap deleted a third of the way " +
			"into the fault phase (`workload.Lifecycle`). The plan that catches the buggy variant, a hold of the Secret cache from just " +
			"before the operator's first Secret, is the first workload's seventh targeted plan, as it was: seventh of one list then, " +
			"thirteenth of two interleaved now (the second workload's first six plans, places 2 to 12, hold).",
	}}
}

// OnOperatortest is the canary's entry as an operatortest test (Test): the
// entry the catalogue runs. Its buggy
// variant is caught at plan 16 of seed 1; shrinking its plan takes 3.8 to
// 6.4 s of wall time on a loaded 2-core machine (0.4 s on the kernel's
// explorer), which the command's tests, exploring canary/* over and over,
// pay each time.
func OnOperatortest() *catalogue.Entry {
	return catalogue.Ported(Entries(), map[string]func(variant.Variant) operatortest.Options{"canary/stale-cache": Test})[0]
}
