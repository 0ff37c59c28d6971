package process_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/klog/v2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// pkgLog is derived from controller-runtime's global logger at package
// initialisation, before anything set it, as operators' packages do.
var pkgLog = ctrl.Log.WithName("pkg")

// keeper logs through a logger kept in the struct (r.Log =
// ctrl.Log.WithName(...) in main.go), through the package's logger and
// through klog: never through the reconcile context's logger.
type keeper struct{ Log logr.Logger }

func (r *keeper) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	r.Log.Info("kept", "name", req.Name)
	pkgLog.Info("package")
	klog.InfoS("from klog", "name", req.Name)
	klog.V(2).InfoS("klog debug")
	r.Log.V(1).Info("debug")
	return reconcile.Result{}, nil
}

// Lines logged through controller-runtime's global logger (loggers derived
// from ctrl.Log, kept in a struct or a package) and through klog are steps of
// the process whose task logged them, attributed to the reconcile they ran in;
// a line Setup logs is its process's; debug lines are dropped; a line logged
// from no process (the test's own goroutine) is not in the trace.
func TestGlobalLoggerLinesAreAttributedToTheirProcessAndReconcile(t *testing.T) {
	spec := func(name string) process.Spec {
		return process.Spec{Name: name, Setup: func(p *process.Process) error {
			ctrl.Log.WithName("setup").Info("setting up", "process", name)
			r := &keeper{Log: ctrl.Log.WithName("controllers").WithValues("process", name)}
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(r)
		}}
	}
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme:    clientgoscheme.Scheme,
		Processes: []process.Spec{spec("a"), spec("b")},
		Setup: func(c *cluster.Cluster) error {
			return c.Admin().Create(context.Background(), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "x"}})
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	ctrl.Log.Info("from the test's goroutine")
	c.RunFor(time.Second)
	got := map[string][]string{}
	for _, s := range c.Trace.Steps() {
		if s.Op != "log" || s.Controller == "configmap" && s.Reconcile == 0 {
			continue // controller-runtime's own lines as the controller starts
		}
		got[s.Process] = append(got[s.Process], fmt.Sprintf("%s @%s/%d", s.Result, s.Controller, s.Reconcile))
	}
	for _, name := range []string{"a", "b"} {
		want := []string{
			"setup: setting up process=" + name + " @/0",
			"controllers: kept process=" + name + " name=x @configmap/1",
			"pkg: package @configmap/1",
			"from klog name=x @configmap/1",
		}
		if !slices.Equal(got[name], want) {
			t.Errorf("process %s logged\n  %q\nwant\n  %q", name, got[name], want)
		}
	}
	if len(got) != 2 {
		t.Errorf("log steps of processes %v, want a and b only", got)
	}
}
