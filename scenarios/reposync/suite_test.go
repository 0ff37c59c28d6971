package reposync_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/reposync"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// suiteT is the test the specs run in: operatortest.Replay runs each plan
// in a testing/synctest bubble of it.
var suiteT *testing.T

func TestReposync(t *testing.T) {
	suiteT = t
	RegisterFailHandler(Fail)
	RunSpecs(t, "scenarios/reposync")
}

var ctx = context.Background()

// run replays planText on the world of o (scenario.Test) through a fault
// phase of faults and a heal budget of heal. The generic oracles are left
// out: the specs judge the seed's own behaviour (the kernel's verdicts
// still hold).
func run(planText string, o scenario.Options, faults, heal time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	p, err := plan.Parse(planText)
	Expect(err).NotTo(HaveOccurred())
	opts := scenario.Test(o, faults, heal)
	opts = catalogue.ForSpecs(opts)
	r, err := operatortest.Replay(suiteT, opts, p)
	Expect(err).NotTo(HaveOccurred())
	for _, v := range r.Violated() {
		Expect(world.KernelVerdicts).NotTo(ContainElement(v.Property), v.String())
	}
	return r
}

// runFor is run for d with no heal to speak of.
func runFor(planText string, o scenario.Options, d time.Duration) *operatortest.Replayed {
	GinkgoHelper()
	return run(planText, o, d, time.Millisecond)
}

// timeline is the run's timeline, attached to a failing spec.
func timeline(c *operatortest.Replayed) string { return strings.Join(c.Timeline, "\n") }

// namespaceGone reports whether namespace ns no longer exists at the end.
func namespaceGone(c *operatortest.Replayed, ns string) bool {
	GinkgoHelper()
	err := c.Final.Get(types.NamespacedName{Name: ns}, &corev1.Namespace{})
	if apierrors.IsNotFound(err) {
		return true
	}
	Expect(err).NotTo(HaveOccurred())
	return false
}

// repoSync returns the RepoSync of ns at the end, or nil when it is gone.
func repoSync(c *operatortest.Replayed, ns string) *reposync.RepoSync {
	GinkgoHelper()
	rs := &reposync.RepoSync{}
	err := c.Final.Get(types.NamespacedName{Namespace: ns, Name: reposync.RepoSyncName}, rs)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return rs
}

// steps returns the steps of process (all processes if "") that match.
func steps(c *operatortest.Replayed, process string, match func(trace.Step) bool) []trace.Step {
	var out []trace.Step
	for _, s := range c.Steps {
		if (process == "" || s.Process == process) && match(s) {
			out = append(out, s)
		}
	}
	return out
}

func forbidden(s trace.Step) bool { return strings.HasPrefix(s.Result, "Forbidden") }

// running reports whether process runs at the end: started or restarted
// since its last crash or stop (a bound process stops when its Deployment
// goes, a "crash" step).
func running(c *operatortest.Replayed, process string) bool {
	up := false
	for _, s := range c.Steps {
		if s.Process != process {
			continue
		}
		switch s.Op {
		case "start", "restart":
			up = true
		case "crash":
			up = false
		}
	}
	return up
}

// finalizerRemover names the process whose write took the reconciler
// finalizer off the RepoSync of ns ("" if none did): the first committed
// version without it after one with it, and the update that wrote it.
func finalizerRemover(c *operatortest.Replayed, ns string) string {
	var rv uint64
	had := false
	for _, ev := range c.Final.Run().Log {
		if ev.GVK != reposync.RepoSyncGVK || ev.Object.GetNamespace() != ns {
			continue
		}
		has := controllerutil.ContainsFinalizer(ev.Object, reposync.ReconcilerFinalizer)
		if had && !has {
			rv = ev.ResourceVersion
			break
		}
		had = has
	}
	for _, s := range c.Steps {
		if rv != 0 && s.Op == "update" && s.RVWritten == rv && s.Object == "RepoSync "+ns+"/"+reposync.RepoSyncName {
			return s.Process
		}
	}
	return ""
}
