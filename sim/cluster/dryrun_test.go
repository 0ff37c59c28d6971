package cluster_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/sim/apiserver/apiservertest"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// dryRunFirst checks its write with a dry run before it makes it, as
// operators that validate or diff with a server-side dry run do.
type dryRunFirst struct{ p *process.Process }

func (d *dryRunFirst) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	cl := d.p.GetClient()
	w := &apiservertest.Widget{}
	if err := cl.Get(ctx, req.NamespacedName, w); err != nil || w.Status.Phase == "Ready" {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	p := client.RawPatch(types.MergePatchType, []byte(`{"status":{"phase":"Ready"}}`))
	if err := cl.Status().Patch(ctx, w.DeepCopy(), p, client.DryRunAll); err != nil {
		return reconcile.Result{}, err
	}
	return reconcile.Result{}, cl.Status().Patch(ctx, w, p)
}

// A dry run is traced as one ("dry-run patch/status"), and it is not a
// write: a crash planned after the process's first write comes after the
// write that follows it, not after the dry run, which stored nothing.
func TestADryRunIsTracedAndIsNoWrite(t *testing.T) {
	r := &dryRunFirst{}
	opts := statusWorld(nil, 1)
	opts.Processes = []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
		r.p = p
		return ctrl.NewControllerManagedBy(p.Manager()).For(&apiservertest.Widget{}).Complete(r)
	}}}
	c, err := cluster.New(mustParse(t, "seed 1\ncrash process=op write=1\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(5 * time.Second)
	var ops []string
	for _, s := range c.Trace.Steps() {
		if s.Process == "op" && (strings.Contains(s.Op, "patch") || s.Op == "crash") {
			ops = append(ops, s.Op+" "+s.Result)
		}
		if s.Op == "crash" {
			break
		}
	}
	want := []string{"dry-run patch/status ok", "patch/status ok", "crash crash after write 1 (patch)"}
	if strings.Join(ops, "\n") != strings.Join(want, "\n") {
		t.Errorf("op's patches up to its crash:\n%s\nwant:\n%s", strings.Join(ops, "\n"), strings.Join(want, "\n"))
	}
	if trace.IsWrite("dry-run patch/status") {
		t.Error("trace.IsWrite takes a dry run for a write")
	}
}

// A manager whose Options ask for a dry-run client (Client.DryRun) gets one,
// as controller-runtime's client.New wraps it: every write of its client is
// a dry run and changes nothing.
func TestAManagerWithADryRunClientWritesNothing(t *testing.T) {
	r := &statusWriter{}
	opts := statusWorld(r, 1)
	opts.Processes[0].Options = &manager.Options{Client: client.Options{DryRun: ptr.To(true)}}
	c, err := cluster.New(mustParse(t, "seed 1\n"), opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	c.RunFor(5 * time.Second)
	w := &apiservertest.Widget{}
	if err := c.Get(client.ObjectKey{Namespace: "default", Name: "w0"}, w); err != nil || w.Status.Phase != "" {
		t.Errorf("widget w0's status phase is %q (%v), want none: its writer's client dry-runs", w.Status.Phase, err)
	}
	var writes, dry int
	for _, s := range c.Trace.Steps() {
		switch {
		case s.Process == "op" && trace.IsWrite(s.Op):
			writes++
		case s.Process == "op" && strings.HasPrefix(s.Op, "dry-run "):
			dry++
		}
	}
	if writes != 0 || dry == 0 {
		t.Errorf("op made %d writes and %d dry runs, want none and some", writes, dry)
	}
}
