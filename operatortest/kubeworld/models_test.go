package kubeworld_test

import (
	"slices"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
)

// A model is left out of a world only when none of its triggers has an
// object: its triggers must be every kind its controllers watch, else a
// world would leave out a model that had something to do.
func TestModelTriggersAreTheKindsTheirControllersWatch(t *testing.T) {
	controllers := map[string][]kube.Controller{
		"replicaset":    (&kube.ReplicaSetController{}).Controllers(),
		"deployment":    (&kube.DeploymentController{}).Controllers(),
		"job":           (&kube.JobController{}).Controllers(),
		"statefulset":   (&kube.StatefulSetController{}).Controllers(),
		"endpointslice": (&kube.EndpointSliceController{}).Controllers(),
		"kubelet":       (&kube.Kubelet{}).Controllers(),
		"pvcprotection": nil, // hosted only (kcm), no model
		"pvprotection":  nil, // hosted only (kcm), no model
	}
	models := append(kubeworld.Models(), kubeworld.Model{Name: "kubelet", Triggers: kubeworld.KubeletTriggers})
	if len(models) != len(controllers) {
		t.Fatalf("%d models, %d known here: a model was added or removed; list its controllers in this test", len(models), len(controllers))
	}
	for _, m := range models {
		cs, ok := controllers[m.Name]
		if !ok {
			t.Fatalf("model %s: not known to this test", m.Name)
		}
		if cs == nil && m.Hosted != "" {
			continue // kube-controller-manager's own controller: kcm.Controllers gives its Triggers
		}
		var watched []schema.GroupKind
		for _, c := range cs {
			for _, w := range c.Watches {
				gvk, err := apiutil.GVKForObject(w.Object, clientgoscheme.Scheme)
				if err != nil {
					t.Fatal(err)
				}
				if !slices.Contains(watched, gvk.GroupKind()) {
					watched = append(watched, gvk.GroupKind())
				}
			}
		}
		for _, gk := range watched {
			if !slices.Contains(m.Triggers, gk) {
				t.Errorf("model %s watches %s, which is not among its triggers %v", m.Name, gk, m.Triggers)
			}
		}
		for _, gk := range m.Triggers {
			if !slices.Contains(watched, gk) {
				t.Errorf("model %s has trigger %s, which none of its controllers watches", m.Name, gk)
			}
		}
	}
}
