package bench

import (
	"context"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/twowrites"
	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// envtestRounds is how many rounds each side of the envtest ratio runs,
// interleaved (envtest, then operatortest, five times).
const envtestRounds = 5

// measureEnvtestRatio times the same operator and workload on envtest and on
// operatortest in one run, interleaved: the fixed twowrites operator serving
// its seed ConfigMap until both Secrets exist. On envtest a round is a
// fresh namespace, the operator's manager built and started (its
// SetupWithManager), the ConfigMap created, and the two Secrets polled for
// every millisecond; envtest's own start-up is not counted. On operatortest
// a round is one plan of the test's Options with no faults and no workload
// steps, replayed and judged (operatortest.Replay: the world built, its
// fault-free reference runs, the run to the end of its heal budget and
// every verdict), which is more work than the envtest round does.
func measureEnvtestRatio(t *testing.T) (*EnvtestRatio, string) {
	assets, err := envtestenv.Assets()
	if err != nil {
		return nil, "not measured: envtest assets missing (make envtest-assets): " + err.Error()
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: clientgoscheme.Scheme})
	if err != nil {
		return nil, "not measured: " + err.Error()
	}
	defer env.Stop()
	o := benchOperators[0].options(false) // twowrites, fixed
	empty := &plan.Plan{Seed: 1}
	var onEnvtest, onSim []float64
	for i := 0; i < envtestRounds; i++ {
		d, err := twowritesOnEnvtest(env, fmt.Sprintf("shop-%d", i))
		if err != nil {
			return nil, "not measured: envtest round: " + err.Error()
		}
		onEnvtest = append(onEnvtest, d.Seconds())
		start := time.Now()
		r, err := operatortest.Replay(t, o, empty)
		if err != nil {
			return nil, "not measured: operatortest round: " + err.Error()
		}
		if v := r.Violated(); len(v) > 0 {
			return nil, fmt.Sprintf("not measured: the fault-free plan violates %s", v[0].Property)
		}
		onSim = append(onSim, time.Since(start).Seconds())
	}
	e := &EnvtestRatio{
		Operator: "twowrites (fixed)", Rounds: envtestRounds,
		Envtest: median(onEnvtest), Operatortest: median(onSim),
	}
	e.Ratio = e.Envtest / e.Operatortest
	return e, ""
}

// twowritesOnEnvtest is one envtest round in namespace ns.
func twowritesOnEnvtest(env *envtestenv.Env, ns string) (time.Duration, error) {
	ctx := context.Background()
	start := time.Now()
	if err := envtestenv.CreateNamespace(ctx, env.Admin, ns); err != nil {
		return 0, err
	}
	mgr, err := env.StartManager(envtestenv.ManagerOptions{}, func(m ctrl.Manager) error {
		return (&twowrites.Reconciler{Client: m.GetClient(), Fixed: true}).SetupWithManager(m)
	})
	if err != nil {
		return 0, err
	}
	defer mgr.Stop()
	app := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "web", Labels: map[string]string{twowrites.AppLabel: "yes"}}}
	if err := env.Admin.Create(ctx, app); err != nil {
		return 0, err
	}
	for deadline := start.Add(time.Minute); time.Now().Before(deadline); time.Sleep(time.Millisecond) {
		var secrets corev1.SecretList
		if err := env.Admin.List(ctx, &secrets, client.InNamespace(ns)); err != nil {
			return 0, err
		}
		names := map[string]bool{}
		for _, s := range secrets.Items {
			names[s.Name] = true
		}
		if names["web-config"] && names["web-credentials"] {
			return time.Since(start), nil
		}
	}
	return 0, fmt.Errorf("namespace %s: the two Secrets did not appear within a minute", ns)
}
