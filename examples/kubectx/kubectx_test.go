package kubectx_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/kubectx"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/operatortest/clientgo"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/wallclock"
)

// options are the whole of the test: the scheme, the operator's main (from
// the kubeconfig file Env names, the world's, as its --kubeconfig flag),
// two seed objects and what the operator promises (tokened); default
// Options otherwise.
func options(buggy bool) operatortest.Options {
	return operatortest.Options{
		Scheme: clientgoscheme.Scheme,
		Managers: []operatortest.Manager{{Name: "kubectx", Setup: clientgo.Setup(func(ctx context.Context, env clientgo.Env) error {
			return kubectx.Main(ctx, env.Kubeconfig, buggy)
		})}},
		Properties: []operatortest.Property{{Name: "tokened", Check: tokened}},
		Objects: []client.Object{
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web", Labels: map[string]string{kubectx.TokenLabel: "yes"}},
				Data: map[string]string{"a": "1", "b": "2"}},
			&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "db", Labels: map[string]string{kubectx.TokenLabel: "yes"}},
				Data: map[string]string{"a": "1"}},
		},
	}
}

// tokened: at the run's end every ConfigMap labelled TokenLabel=yes has
// its token, owned by it, whose KeysKey says how many keys its data has,
// and notes that in ReadyAnnotation.
func tokened(h *operatortest.History) error {
	var cms corev1.ConfigMapList
	if err := h.List(&cms); err != nil {
		return err
	}
	for _, cm := range cms.Items {
		if cm.Labels[kubectx.TokenLabel] != "yes" || cm.DeletionTimestamp != nil {
			continue
		}
		var token corev1.Secret
		if err := h.Get(client.ObjectKey{Namespace: cm.Namespace, Name: cm.Name + "-token"}, &token); err != nil {
			return fmt.Errorf("%s/%s's token: %w", cm.Namespace, cm.Name, err)
		}
		want := fmt.Sprint(len(cm.Data))
		if ref := metav1.GetControllerOf(&token); ref == nil || ref.UID != cm.UID {
			return fmt.Errorf("%s/%s's token is not owned by it", cm.Namespace, cm.Name)
		}
		if got := string(token.Data[kubectx.KeysKey]); got != want {
			return fmt.Errorf("%s/%s's token says %s keys, its data has %s", cm.Namespace, cm.Name, got, want)
		}
		if got := cm.Annotations[kubectx.ReadyAnnotation]; got != want {
			return fmt.Errorf("%s/%s notes %q keys, its token says %s", cm.Namespace, cm.Name, got, want)
		}
	}
	return nil
}

// The correct framework holds over default Options' plans (100).
func TestTheCorrectFrameworkHolds(t *testing.T) {
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught || res.Checks < 100 { // 100: default Options (-ctrlsim.checks=1000 measures more)
		t.Errorf("the correct framework: %d plans, violations %v; want 100 plans or more and none", res.Checks, res.Violations)
	}
}

// The buggy framework is caught, and its minimal plan replays twice to the
// trace hash the exploration saw, violating what it reported, word for
// word (on the same ConfigMap: the one whose token's create the plan's
// error answer meets).
func TestTheBuggyFrameworkIsCaught(t *testing.T) {
	res, err := operatortest.Explore(t, options(true))
	if err != nil {
		t.Fatal(err)
	}
	if !res.Caught || len(res.Violations) == 0 {
		t.Fatalf("the buggy framework was not caught in %d plans", res.Checks)
	}
	t.Logf("caught after %d plans by %s: %s", res.Checks, res.Violations[0].Property, res.Minimal)
	for range 2 {
		r, err := operatortest.Replay(t, options(true), res.Minimal)
		if err != nil {
			t.Fatal(err)
		}
		if r.Hash != res.Hash {
			t.Errorf("the minimal plan's replay gave trace hash %s, the exploration's run %s", r.Hash, res.Hash)
		}
		if got, want := details(r.Violated()), details(res.Violations); !slices.Equal(got, want) {
			t.Errorf("the minimal plan's replay violates %q, the exploration reported %q", got, want)
		}
	}
}

// Every replay of one plan gives one trace hash: the operator's own
// informer factory (client-go's, started by the operator, on a clientset
// from the kubeconfig) hands its handlers the ConfigMaps present at its
// start in one order in every run, so the tokens are made in one order
// (sim/process's watchlist.go: its reflectors list, then watch). Before,
// about one replay in four of the fault-free plan made the tokens in the
// other order.
func TestEveryReplayOfAPlanGivesOneTraceHash(t *testing.T) {
	const replays = 30
	hashes := map[string]int{}
	for range replays {
		hashes[faultfree.Replay(t, options(false)).Hash]++
	}
	if len(hashes) != 1 {
		t.Errorf("%d replays of the fault-free plan gave %d trace hashes: %v", replays, len(hashes), hashes)
	}
}

// details are the properties vs name and what each says, in order.
func details(vs []check.Verdict) []string {
	var out []string
	for _, v := range vs {
		out = append(out, v.Property+": "+v.Detail)
	}
	return out
}

// Each controller's event broadcaster, which the framework never shuts
// down, outlives every world: the exploration ends, the operator holds,
// and the test names the broadcasters' goroutines once, in one line, by
// the frames that started them.
func TestBroadcastersNeverShutDownAreNamedOnce(t *testing.T) {
	var lines []string
	report := wallclock.Report
	wallclock.Report = func(t *testing.T, line string) { lines = append(lines, line) }
	defer func() { wallclock.Report = report }()
	res, err := operatortest.Explore(t, options(false))
	if err != nil {
		t.Fatal(err)
	}
	if res.Caught {
		t.Errorf("violations %v", res.Violations)
	}
	if len(lines) != 1 {
		t.Fatalf("%d lines name goroutines left over, want one:\n%s", len(lines), strings.Join(lines, "\n"))
	}
	for _, w := range []string{"4 goroutines of the code under test outlived the world",
		"2 goroutines started by k8s.io/apimachinery/pkg/watch.NewLongQueueBroadcaster",
		"2 goroutines started by k8s.io/client-go/tools/record.(*eventBroadcasterImpl).StartEventWatcher"} {
		if !strings.Contains(lines[0], w) {
			t.Errorf("the line lacks %q:\n%s", w, lines[0])
		}
	}
}
