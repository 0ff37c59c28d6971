package reposync_test

import (
	"context"
	"strings"
	"testing"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"

	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"github.com/ctrlsim/ctrlsim/controllers/reposync"
	scenario "github.com/ctrlsim/ctrlsim/scenarios/reposync"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

func TestReposync(t *testing.T) {
	RegisterFailHandler(Fail)
	RunSpecs(t, "scenarios/reposync")
}

var ctx = context.Background()

// start builds the world of o running the plan text; the caller runs it.
func start(planText string, o scenario.Options) *cluster.Cluster {
	GinkgoHelper()
	p, err := plan.Parse(planText)
	Expect(err).NotTo(HaveOccurred())
	c, err := cluster.New(p, scenario.World(o))
	Expect(err).NotTo(HaveOccurred())
	DeferCleanup(c.Close)
	return c
}

// timeline is the run's timeline, attached to a failing spec.
func timeline(c *cluster.Cluster) string {
	var b strings.Builder
	_ = c.Trace.WriteTimeline(&b)
	return b.String()
}

// namespaceGone reports whether namespace ns no longer exists.
func namespaceGone(c *cluster.Cluster, ns string) bool {
	GinkgoHelper()
	err := c.Get(types.NamespacedName{Name: ns}, &corev1.Namespace{})
	if apierrors.IsNotFound(err) {
		return true
	}
	Expect(err).NotTo(HaveOccurred())
	return false
}

// repoSync returns the RepoSync of ns, or nil when it is gone.
func repoSync(c *cluster.Cluster, ns string) *reposync.RepoSync {
	GinkgoHelper()
	rs := &reposync.RepoSync{}
	err := c.Get(types.NamespacedName{Namespace: ns, Name: reposync.RepoSyncName}, rs)
	if apierrors.IsNotFound(err) {
		return nil
	}
	Expect(err).NotTo(HaveOccurred())
	return rs
}

// steps returns the steps of process (all processes if "") that match.
func steps(c *cluster.Cluster, process string, match func(trace.Step) bool) []trace.Step {
	var out []trace.Step
	for _, s := range c.Trace.Steps() {
		if (process == "" || s.Process == process) && match(s) {
			out = append(out, s)
		}
	}
	return out
}

func forbidden(s trace.Step) bool { return strings.HasPrefix(s.Result, "Forbidden") }

// finalizerRemover watches the RepoSync of ns and, when asked, names the
// process whose write took the reconciler finalizer off ("" if none did).
func finalizerRemover(c *cluster.Cluster, ns string) func() string {
	var rv uint64
	had := false
	c.Server.Watcher().Watch(reposync.RepoSyncGVK, func(ev apiserver.Event) {
		if ev.Object.GetNamespace() != ns {
			return
		}
		has := controllerutil.ContainsFinalizer(ev.Object, reposync.ReconcilerFinalizer)
		if had && !has && rv == 0 {
			rv = ev.ResourceVersion
		}
		had = has
	})
	return func() string {
		for _, s := range c.Trace.Steps() {
			if rv != 0 && s.Op == "update" && s.RVWritten == rv && s.Object == "RepoSync "+ns+"/"+reposync.RepoSyncName {
				return s.Process
			}
		}
		return ""
	}
}
