package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// A Setup that builds a clientset from mgr.GetConfig() and calls it works: the
// request is the process's own traced call, and a crash planned at that call
// happens there (the call never reaches the server), as for the manager's
// client.
func TestASetupsClientsetCallIsTheProcesssTracedCall(t *testing.T) {
	for _, crash := range []bool{false, true} {
		text := "seed 1\n"
		if crash {
			text += "crash process=op call=1\n"
		}
		p, err := plan.Parse(text)
		if err != nil {
			t.Fatal(err)
		}
		s := runtime.NewScheme()
		if err := clientgoscheme.AddToScheme(s); err != nil {
			t.Fatal(err)
		}
		var setupErr error
		c, err := cluster.New(p, cluster.Options{Scheme: s, Processes: []process.Spec{{Name: "op", Setup: func(pr *process.Process) error {
			cs, err := kubernetes.NewForConfig(pr.Manager().GetConfig())
			if err != nil {
				return err
			}
			_, setupErr = cs.CoreV1().ConfigMaps("default").Create(context.Background(),
				&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "from-setup"}}, metav1.CreateOptions{})
			return nil
		}}}})
		if err != nil {
			t.Fatal(err)
		}
		c.RunFor(time.Second)
		var traced []string
		for _, st := range c.Trace.Steps() {
			if st.Process == "op" && st.Op == "create" {
				traced = append(traced, st.Object+" "+st.Result)
			}
		}
		var cm corev1.ConfigMap
		got := c.Get(client.ObjectKey{Namespace: "default", Name: "from-setup"}, &cm)
		c.Close()
		switch {
		case !crash && (setupErr != nil || got != nil || len(traced) != 1 || !strings.HasPrefix(traced[0], "ConfigMap default/from-setup ok")):
			t.Fatalf("fault-free: setup error %v, stored %v, traced %q", setupErr, got, traced)
		case crash && (setupErr == nil || got == nil || len(traced) != 0):
			t.Fatalf("crash at call 1: setup error %v, stored %v, traced %q: want the call refused and nothing stored", setupErr, got, traced)
		}
	}
}
