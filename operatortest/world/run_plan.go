package world

import (
	"context"
	"errors"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// userProperty is a test's Property as a check.Property.
type userProperty struct {
	p Property
	c *cluster.Cluster
}

func (u userProperty) Name() string { return u.p.Name }

func (u userProperty) Check(r *check.Run) check.Verdict {
	return propertyVerdict(u.p.Name, u.p.Check(&History{c: u.c, run: r}), r.End)
}

// History is what a Property judges: the final state (read as cluster admin)
// and what happened.
type History struct {
	c   *cluster.Cluster
	run *check.Run
}

// Get reads an object of the final state.
func (h *History) Get(key client.ObjectKey, obj client.Object) error { return h.c.Get(key, obj) }

// List lists objects of the final state.
func (h *History) List(list client.ObjectList, opts ...client.ListOption) error {
	return h.c.List(list, opts...)
}

// Steps is the trace of the run: every client call, reconcile, result, log
// line, crash and restart, with its virtual time.
func (h *History) Steps() []trace.Step { return h.run.Steps }

// HealAt is when the fault phase ended; End is when the run ended.
func (h *History) HealAt() time.Duration { return h.run.HealAt }

// End is when the run ended.
func (h *History) End() time.Duration { return h.run.End }

// Run is the run as the kernel's properties see it (the apiserver's watch log
// included: every committed change, in order).
func (h *History) Run() *check.Run { return h.run }

func createNamespace(ctx context.Context, c *cluster.Cluster, ns string) error {
	err := c.Admin().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	if err != nil && !apierrors.IsAlreadyExists(err) {
		return err
	}
	return nil
}

func Plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// watchedKinds are the kinds each process's informers cache, as its
// cache holds them at the end of a run ("group/version/Kind"): in a
// fault-free run, every informer the process ever started.
func watchedKinds(c *cluster.Cluster) map[string][]string {
	out := map[string][]string{}
	for _, p := range c.Processes() {
		kinds := []string{}
		if p.GetCache() == nil {
			continue // never started: nothing is known of what it caches
		}
		for _, inf := range p.GetCache().Informers() {
			gvk := inf.GVK()
			if k := gvk.Group + "/" + gvk.Version + "/" + gvk.Kind; !slices.Contains(kinds, k) {
				kinds = append(kinds, k)
			}
		}
		out[p.Name()] = kinds
	}
	return out
}

// randomSeed is the seed of a run's environment for a plan with this seed:
// what the world outside the operator's schedule draws at random. That is
// the randomness code in the process draws (above), the apiserver's
// suffixes of generated names (cluster.Options.NamesSeed) and the kubelet's
// durations of each pod: its binding, its start and how long its
// containers run (kubeworld.Delays.Seed). A seed and its otherSeed share
// it: interleavings-agree compares two interleavings of one workload in one
// environment, not two environments (a Job that ran 7 s in one and 29 s in
// the other ends differently whatever the operator does). What the seed
// keeps for the schedule alone is the interleaving: which task runs next,
// every API call's latency, every watch event's delivery, when a CRD is
// Established, when a replica retries for its leader Lease. Other plans draw
// other environments.
func randomSeed(seed uint64) uint64 { return seed % 2048 }

// drawSeed is the seed of the randomness the operator's processes draw in a
// run of a plan with this seed: randomSeed, or, in the run with other draws,
// a seed no plan's environment has (randomSeed is below 2048).
func (w *World) drawSeed(seed uint64) uint64 {
	if w.OtherDraws {
		return randomSeed(seed) + 4096
	}
	return randomSeed(seed)
}

// randomAtEveryStart makes every start of the operator's processes start the
// run's randomness over.
func (w *World) randomAtEveryStart(specs []process.Spec) []process.Spec {
	for i := range specs {
		setup := specs[i].Setup
		specs[i].Setup = func(p *process.Process) error {
			if w.restartRandom != nil {
				w.restartRandom()
			}
			return setup(p)
		}
	}
	return specs
}

// CutNote is the note of a run cut at its work bound, "" if it was not.
func CutNote(vs []check.Verdict) string {
	for _, v := range vs {
		if v.Property == cluster.WorkBoundProperty {
			return v.Detail
		}
	}
	return ""
}

// NoteCut records that a run of the plan being judged, or a reference it
// is judged against, was cut.
func (w *World) NoteCut(note string) {
	if note != "" && w.JudgeCut == "" {
		w.JudgeCut = note
	}
}

// propertyVerdict is the verdict of a test's property whose Check returned
// err, in a run that ended at end.
func propertyVerdict(name string, err error, end time.Duration) check.Verdict {
	if err == nil {
		return check.Verdict{Property: name, Holds: true}
	}
	at := end
	var va *violatedAt
	if errors.As(err, &va) {
		at = va.at
	}
	return check.Verdict{Property: name, Detail: err.Error(), At: at}
}
