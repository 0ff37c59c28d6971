package world_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/reference"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A manager with a Deployment runs as that Deployment's pod: from
// StartDelay after the Deployment appears until it is deleted, and not
// before (an operator's per-tenant worker that another controller spawns).
func TestAManagerOfADeploymentRunsWhileTheDeploymentExists(t *testing.T) {
	labels := map[string]string{"app": "op"}
	pod := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "team", Name: "op-pod"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "manager", Image: "op:v1"}}}}}}
	o := optest.AppOptions(optest.Child())
	o.Managers[0].Deployment = &types.NamespacedName{Namespace: "team", Name: "op-pod"}
	o.Managers[0].StartDelay = 2 * time.Second
	o.Workload = world.Workload{Steps: []world.StepKind{}, Script: []world.Step{world.Create(5*time.Second, pod), world.Delete(20*time.Second, pod)}}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	p := plan.Generator(w.Space).Example(0)
	p.Faults = nil // the script's steps alone
	r, err := reference.Run(w, t, p)
	if err != nil {
		t.Fatal(err)
	}
	var first, last time.Duration = -1, -1
	for _, s := range r.Steps {
		if s.Process != "op" {
			continue
		}
		at := s.At
		if first < 0 {
			first = at
		}
		last = at
	}
	switch {
	case first < 0:
		t.Fatal("the manager never ran: its Deployment was created at 5s")
	case first < 7*time.Second:
		t.Errorf("the manager ran at %s, before its Deployment (5s) and start delay (2s)", first)
	case last > 21*time.Second:
		t.Errorf("the manager ran at %s, after its Deployment was deleted (20s)", last)
	}
}

// A bad Deployment or StartDelay is refused with one line naming it.
func TestABadDeploymentManagerIsRefused(t *testing.T) {
	for want, set := range map[string]func(m *world.Manager){
		"StartDelay is -1s": func(m *world.Manager) { m.StartDelay = -time.Second },
		"needs a namespace": func(m *world.Manager) { m.Deployment = &types.NamespacedName{Name: "op-pod"} },
		"runs as one pod": func(m *world.Manager) {
			m.Deployment = &types.NamespacedName{Namespace: "team", Name: "op-pod"}
			m.Replicas = 2
		},
	} {
		o := optest.AppOptions(optest.Child())
		set(&o.Managers[0])
		if err := o.Validate(); err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v, want one line with %q", err, want)
		}
	}
}
