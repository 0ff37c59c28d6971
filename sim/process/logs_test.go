package process_test

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	logf "sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

type talker struct{}

func (talker) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := logf.FromContext(ctx).WithName("talker")
	log.Info("reconciling", "object", req.Name, "note", "two words")
	log.V(1).Info("debug detail")
	log.Error(errors.New("boom"), "could not finish")
	return reconcile.Result{}, nil
}

// What a reconciler logs through the context's logger is in the trace, at its
// virtual time and attributed to its reconcile; debug lines are not.
func TestAReconcilersLogLinesAreTraceSteps(t *testing.T) {
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(talker{})
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	var logs []trace.Step
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" {
			logs = append(logs, s)
		}
	}
	// controller-runtime's own lines as it starts the controller, then the
	// reconciler's, in its reconcile 1.
	want := []struct {
		line      string
		reconcile int
	}{
		{"Starting Controller", 0},
		{"Starting workers worker count=1", 0},
		{`talker: reconciling object=x note="two words"`, 1},
		{`ERROR talker: could not finish error=boom`, 1},
	}
	if len(logs) != len(want) {
		t.Fatalf("log steps %v, want %d", logs, len(want))
	}
	for i, s := range logs {
		if s.Result != want[i].line || s.Process != "op" || s.Controller != "configmap" || s.Reconcile != want[i].reconcile {
			t.Errorf("log step %d: %+v, want %q of controller configmap in op's reconcile %d", i, s, want[i].line, want[i].reconcile)
		}
		if !strings.Contains(s.String(), "log") {
			t.Errorf("the timeline line %q does not show the log", s.String())
		}
	}
}

// An object logged as a value prints as controller-runtime's zap logger prints
// it (kind, namespace, name), never its content: a Job's generated String
// prints the addresses of its pointer fields, which differ in every run.
func TestALoggedObjectPrintsItsNameNotItsPointers(t *testing.T) {
	var lines []string
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(
				func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
					yes := true
					cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: req.Namespace, Name: req.Name,
						OwnerReferences: []metav1.OwnerReference{{Name: "o", Controller: &yes}}}}
					logf.FromContext(ctx).Info("seen", "configmap", cm)
					return reconcile.Result{}, nil
				}))
		}}},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second)
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" && strings.HasPrefix(s.Result, "seen") {
			lines = append(lines, s.Result)
		}
	}
	if want := []string{`seen configmap="{namespace=default name=x}"`}; !slices.Equal(lines, want) {
		t.Errorf("log lines %q, want %q", lines, want)
	}
}
