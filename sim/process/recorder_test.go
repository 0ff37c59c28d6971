package process_test

import (
	"context"
	"testing"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

type announcer struct {
	p   *process.Process
	rec record.EventRecorder
}

func (a *announcer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cm := &corev1.ConfigMap{}
	if err := a.p.GetClient().Get(ctx, req.NamespacedName, cm); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	a.rec.Eventf(cm, corev1.EventTypeNormal, "Seen", "saw %s", cm.Name)
	a.rec.Event(cm, "Loud", "Ignored", "an invalid type is dropped")
	return reconcile.Result{}, nil
}

// A recorder's Event is written to the apiserver as client-go's recorder writes
// it, by the process, after the call returns; an invalid type is dropped.
func TestRecordedEventsAreWrittenByTheProcess(t *testing.T) {
	a := &announcer{}
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			a.p, a.rec = p, p.GetEventRecorderFor("announcer")
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(a)
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
	var events corev1.EventList
	if err := c.List(&events); err != nil {
		t.Fatal(err)
	}
	if len(events.Items) != 1 {
		t.Fatalf("%d events, want 1 (the invalid type dropped): %+v", len(events.Items), events.Items)
	}
	e := events.Items[0]
	if e.Reason != "Seen" || e.Message != "saw x" || e.Type != corev1.EventTypeNormal || e.InvolvedObject.Name != "x" ||
		e.InvolvedObject.Kind != "ConfigMap" || e.Source.Component != "announcer" || e.Namespace != "default" || e.Count != 1 {
		t.Errorf("event %+v", e)
	}
	var created, dropped bool
	for _, s := range c.Trace.Steps() {
		if s.Process == "op" && s.Op == "create" && s.Controller == "" && s.Result == "ok" {
			created = true
		}
		if s.Op == "log" && s.Result == `ERROR unsupported event type: "Loud"` {
			dropped = true
		}
	}
	if !created || !dropped {
		t.Errorf("trace: event created by op outside the reconcile %v, invalid type logged %v", created, dropped)
	}
}
