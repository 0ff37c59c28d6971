package canary_test

import (
	"context"
	"os"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"pgregory.net/rapid"

	"github.com/ctrlsim/ctrlsim/controllers/canary"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

var space = plan.Space{Processes: []string{"op"}, Kinds: []string{"/v1/ConfigMap", "/v1/Secret"}, Horizon: time.Minute}

func world() cluster.Options {
	return cluster.Options{
		Scheme: scheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			mgr := p.Manager() // a controller-runtime manager.Manager
			return (&canary.Reconciler{Client: mgr.GetClient(), Variant: "buggy"}).SetupWithManager(mgr)
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
				Namespace: "default", Name: "app", Labels: map[string]string{canary.ParentLabel: "yes"}}})
		},
	}
}

func TestAtMostOneChild(t *testing.T) {
	if os.Getenv("CTRLSIM_CANARY") == "" {
		t.Skip("the canary fails on purpose: set CTRLSIM_CANARY=1 to watch rapid catch and shrink it")
	}
	rapid.Check(t, func(t *rapid.T) {
		p := plan.Generator(space).Draw(t, "plan")
		c, err := cluster.New(p, world())
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.RunFor(space.Horizon)
		var children corev1.SecretList
		if err := c.List(&children); err != nil {
			t.Fatal(err)
		}
		if len(children.Items) > 1 {
			t.Fatalf("%d child Secrets, want at most 1; the plan:\n%s", len(children.Items), p)
		}
	})
}
