package bundledeployment

import (
	"fmt"
	"time"

	apimeta "k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/watch"
	"sigs.k8s.io/controller-runtime/pkg/client"

	bdc "github.com/ctrlsim/ctrlsim/controllers/bundledeployment"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// SettledBackoff is SEEDS.md Seed 1 I1 for BundleDeployment example: while its
// install keeps failing, at most one reconcile per backoff firing after a first
// burst of at most 2 (reconciles closer than 100ms form a burst).
func SettledBackoff() check.Property {
	return check.SettledBackoff{Controller: ControllerName, Object: "/" + Example}
}

// RootCauseVisible is Seed 1 I2: from the first failure shown, the Installed
// message of example contains the root cause (the invalid Deployment) at least
// 95% of the time, rather than a side effect of the previous attempt's cleanup.
func RootCauseVisible() check.Property {
	return check.RootCauseVisible{
		GVK: bdc.BundleDeploymentGVK, Key: client.ObjectKey{Name: Example},
		Message: FailureMessage, RootCause: RootCause,
	}
}

// Properties are the properties of the bd/ entries.
func Properties() []check.Property {
	return []check.Property{SettledBackoff(), RootCauseVisible()}
}

// Healthy is the BundleDeployment of bd/blocked-workers whose bundle installs.
const Healthy = "healthy"

// InstalledWithin is SEEDS.md Seed 1 I5 (fairness): BundleDeployment Object,
// once created, shows Installed=True within Bound, however many other
// BundleDeployments keep failing. Judged on the watch log; a BundleDeployment
// never created passes.
type InstalledWithin struct {
	Object string // the BundleDeployment's name
	Bound  time.Duration
}

// Name is "bounded-queue-wait".
func (p InstalledWithin) Name() string { return "bounded-queue-wait" }

// Check finds the creation and the first Installed=True of the object.
func (p InstalledWithin) Check(r *check.Run) check.Verdict {
	created, installed := time.Duration(-1), time.Duration(-1)
	for _, ev := range r.Log {
		if ev.GVK != bdc.BundleDeploymentGVK || ev.Object.GetName() != p.Object {
			continue
		}
		at := ev.At.Sub(r.Start)
		if created < 0 && ev.Type == watch.Added {
			created = at
		}
		bd, ok := ev.Object.(*bdc.BundleDeployment)
		if ok && created >= 0 && apimeta.IsStatusConditionTrue(bd.Status.Conditions, bdc.TypeInstalled) {
			installed = at
			break
		}
	}
	v := check.Verdict{Property: p.Name(), Holds: true}
	switch {
	case created < 0:
		v.Detail = p.Object + " never created"
	case installed < 0 && r.End-created <= p.Bound:
		v.Detail = "run ended before the bound"
	case installed < 0 || installed-created > p.Bound:
		v.Holds, v.At = false, created+p.Bound
		v.Detail = fmt.Sprintf("%s created at %s was not installed within %s", p.Object, created, p.Bound)
		if installed >= 0 {
			v.Detail += fmt.Sprintf(" (installed after %s)", installed-created)
		}
	default:
		v.Detail = fmt.Sprintf("installed %s after its creation", installed-created)
	}
	return v
}

// FairnessProperties are the properties of bd/blocked-workers.
func FairnessProperties() []check.Property {
	return []check.Property{InstalledWithin{Object: Healthy, Bound: FairnessBound}}
}

// FairnessBound is how long a healthy BundleDeployment may wait for a worker.
const FairnessBound = 5 * time.Second
