package bundledeployment

import (
	"context"
	"fmt"
	"sync"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	appsv1 "k8s.io/api/apps/v1"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// The bd/ entries as operatortest tests of the BundleDeployment
// controller's variants, written with the public API. The
// namespace controller is operatortest's own (kube-controller-manager), a
// deleted Namespace terminating at least Options.Termination
// (operatortest.Options.NamespaceTermination); the bundles come from the
// reconciler's Storage; upgrading example and creating the
// BundleDeployment healthy are domain steps.

// TerminatingCleanup is bd/terminating-cleanup: example's install fails for
// good, faults of the rukpak process (lag, holds, latency) over 1 min.
func TerminatingCleanup(v variant.Variant) operatortest.Options {
	return bdOptions(v, Options{}, time.Minute)
}

// SlowCleanup is bd/slow-cleanup: the same with namespaces that take 45 s
// to terminate, over 2 min.
func SlowCleanup(v variant.Variant) operatortest.Options {
	return bdOptions(v, Options{Termination: SlowTermination}, 2*time.Minute)
}

// RollbackLeavesTerminating is bd/rollback-leaves-terminating: example
// installed at v1, upgraded to v2 within 10 s, over 30 s.
func RollbackLeavesTerminating(v variant.Variant) operatortest.Options {
	o := bdOptions(v, Options{Bundle: V1}, 30*time.Second)
	o.Workload.Domain = append(o.Workload.Domain, upgradeStep)
	return o
}

// BlockedWorkers is bd/blocked-workers: FixedWorkers-1 failing
// BundleDeployments beside example, namespaces terminating in 20 s, and
// healthy (bundle v1) created within 25 s, which must be installed within 5 s.
func BlockedWorkers(v variant.Variant) operatortest.Options {
	o := bdOptions(v, Options{Failing: bdc.FixedWorkers - 1, Termination: 20 * time.Second}, 30*time.Second)
	o.Faults = operatortest.Faults{
		Classes: []plan.FaultKind{plan.Lag}, // no workers fault: operatortest draws none

		Processes: []string{Rukpak},
		Kinds:     []schema.GroupVersionKind{bdc.BundleDeploymentGVK},
		MaxLag:    time.Second,
	}
	o.Workload.Domain = append(o.Workload.Domain, createStep)
	o.Properties = fromChecks(FairnessProperties())
	return o
}

// upgradeStep moves BundleDeployment bd to bundle (example to v2 in the
// entries), drawn within 10 s. Example: at 5s upgrade bd=example bundle=v2
var upgradeStep = operatortest.DomainStep{
	Name:   "upgrade",
	Params: []operatortest.Param{{Key: "bd", Values: []string{Example}}, {Key: "bundle", Values: []string{V2}}},
	Within: 10 * time.Second, Min: 1, Max: 1,
	Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
		var bd bdc.BundleDeployment
		if err := env.Client.Get(ctx, client.ObjectKey{Name: a.Get("bd")}, &bd); err != nil {
			return err
		}
		patch := client.MergeFrom(bd.DeepCopy())
		bd.Spec.Template.Spec.Source.Image = &bdc.ImageSource{Ref: a.Get("bundle")}
		return env.Client.Patch(ctx, &bd, patch)
	},
}

// createStep creates BundleDeployment name of bundle (healthy, v1 in the
// entries), drawn within 25 s. Example: at 20s create-bundledeployment
// name=healthy bundle=v1
var createStep = operatortest.DomainStep{
	Name:   "create-bundledeployment",
	Params: []operatortest.Param{{Key: "name", Values: []string{Healthy}}, {Key: "bundle", Values: []string{V1}}},
	Within: 25 * time.Second, Min: 1, Max: 1,
	Do: func(ctx context.Context, env operatortest.StepEnv, a operatortest.Args) error {
		return env.Client.Create(ctx, NewBundleDeployment(a.Get("name"), a.Get("bundle")))
	},
}

// Test is the world of cfg as an operatortest test over faultPhase, every
// domain step of the world declared (apply-broken when cfg has broken
// bundles, upgrade, create-bundledeployment): the world the package's specs
// replay their plans on (operatortest.Replay), as the entries' tests are
// built.
func Test(cfg Options, faultPhase time.Duration) operatortest.Options {
	o := bdOptions(cfg.Variant, cfg, faultPhase)
	up, create := upgradeStep, createStep
	up.Params = []operatortest.Param{{Key: "bd", Values: []string{Example}}, {Key: "bundle", Values: []string{V1, V2, Broken}}}
	create.Params = []operatortest.Param{{Key: "name", Values: []string{Healthy}}, {Key: "bundle", Values: []string{V1, Broken}}}
	o.Workload.Domain = append(o.Workload.Domain, up, create)
	return o
}

// bdOptions are the options every bd/ entry shares, in the world of cfg.
func bdOptions(v variant.Variant, cfg Options, faultPhase time.Duration) operatortest.Options {
	cfg.Variant = v
	cfg = cfg.withDefaults()
	objs := []client.Object{&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ReleaseNamespace}}}
	var applied []client.Object // a user's, at the start: the broken bundles
	if cfg.Bundle == Broken {
		applied = append(applied, NewBundleDeployment(Example, cfg.Bundle))
	} else {
		objs = append(objs, NewBundleDeployment(Example, cfg.Bundle))
	}
	for i := range cfg.Failing {
		applied = append(applied, NewBundleDeployment(fmt.Sprintf("failing-%d", i), Broken))
	}
	var domain []operatortest.DomainStep
	if len(applied) > 0 {
		// What fails for good is a user's doing, not the world's: the user
		// applies the BundleDeployments of broken bundles as time starts
		// (a seed object would say the test's world itself is broken).
		domain = append(domain, operatortest.DomainStep{
			Name: "apply-broken", Within: time.Millisecond, Min: 1, Max: 1,
			Do: func(ctx context.Context, env operatortest.StepEnv, _ operatortest.Args) error {
				for _, o := range applied {
					if err := env.Client.Create(ctx, o.DeepCopyObject().(client.Object)); err != nil {
						return err
					}
				}
				return nil
			},
		})
	}
	return operatortest.Options{
		Scheme: sharedScheme(),
		CRDs:   crds(),
		Managers: []operatortest.Manager{{Name: Rukpak, Setup: func(mgr manager.Manager) error {
			r := &bdc.Reconciler{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Clock: catalogue.ClockOf(mgr), Variant: v,
				Storage: storage{}, ReleaseNamespace: ReleaseNamespace}
			return r.SetupWithManager(mgr)
		}}},
		Objects:  objs,
		Workload: operatortest.Workload{Steps: []operatortest.StepKind{}, Domain: domain},
		Faults: operatortest.Faults{
			// No plan.Workers: operatortest draws no workers fault (it was
			// never drawn here; Options.Faults refuses a class it cannot draw).
			Classes:   []plan.FaultKind{plan.Lag, plan.Hold, plan.Latency},
			Processes: []string{Rukpak},
			Kinds: []schema.GroupVersionKind{bdc.BundleDeploymentGVK, corev1.SchemeGroupVersion.WithKind("Namespace"),
				corev1.SchemeGroupVersion.WithKind("ConfigMap"), appsv1.SchemeGroupVersion.WithKind("Deployment")},
		},
		Properties: fromChecks(Properties()),
		// The plain provisioner keeps its releases as Helm does: a Secret per
		// revision, labelled owner=helm, one more at every retry.
		History:              []operatortest.HistoryObjects{{Kind: "Secret", Labels: map[string]string{"owner": "helm"}}},
		NamespaceTermination: cfg.Termination,
		FaultPhase:           faultPhase,
		// Every variant but robust retries for good; a longer heal budget
		// only adds turns of its cycle (and the fixed variant's inspector
		// page of rollback-leaves-terminating passed 2 MiB at a minute).
		HealBudget:       30 * time.Second,
		NoWorkloadModels: true,
	}
}

func fromChecks(ps []check.Property) []operatortest.Property {
	var out []operatortest.Property
	for _, p := range ps {
		out = append(out, world.FromCheck(p))
	}
	return out
}

// OnOperatortest are the bd/ entries (Entries, their text) with their
// tests: what the catalogue runs.
func OnOperatortest() []*catalogue.Entry {
	tests := map[string]func(variant.Variant) operatortest.Options{
		"bd/terminating-cleanup":         TerminatingCleanup,
		"bd/slow-cleanup":                SlowCleanup,
		"bd/rollback-leaves-terminating": RollbackLeavesTerminating,
		"bd/blocked-workers":             BlockedWorkers,
	}
	return catalogue.Ported(Entries(), tests)
}

// crds are the CRDs of the world as manifests (envtest's, from the Go types).
var crds = sync.OnceValue(func() [][]byte {
	return catalogue.CRDManifests(envtestenv.CRD{GVK: bdc.BundleDeploymentGVK, Plural: bdc.BundleDeploymentPlural,
		Status: true, Type: &bdc.BundleDeployment{}})
})
