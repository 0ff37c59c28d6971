package patterns_test

import (
	"k8s.io/apimachinery/pkg/runtime"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/patterns/jobchild"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

var addToSchemes = []func(*runtime.Scheme) error{jobchild.AddToScheme}

var _ = corev1.ConfigMap{}

// manager is one manager running setup.
func manager1(name string, setup func(mgr manager.Manager) error) []operatortest.Manager {
	return []operatortest.Manager{{Name: name, Setup: setup}}
}

var patterns = []pattern{
	{
		name: "job-child",
		does: "a Task runs its image once as a Job it owns and mirrors the Job's progress in status",
		bug:  "records the start in status before creating the Job, and trusts the record",
		options: func(buggy bool) operatortest.Options {
			return operatortest.Options{
				Scheme: scheme,
				CRDs:   [][]byte{jobchild.CRD},
				Managers: manager1("jobchild", func(mgr manager.Manager) error {
					return (&jobchild.Reconciler{Client: mgr.GetClient(), Buggy: buggy}).SetupWithManager(mgr)
				}),
				Objects: []client.Object{&jobchild.Task{ObjectMeta: metav1.ObjectMeta{Namespace: "work", Name: "report"},
					Spec: jobchild.TaskSpec{Image: "busybox:1.36", Args: []string{"echo", "done"}}}},
			}
		},
	},
}
