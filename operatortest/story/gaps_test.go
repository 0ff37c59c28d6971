package story_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"bytes"
	"context"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr/funcr"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/ctrlsim/ctrlsim/operatortest/story"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/clock"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// A verdict whose detail names no object, no side effect and no reconcile,
// in a run with no failing reconcile and no workload step, is told by the
// faults' steps alone and drawn at its judged time.
func TestAVerdictNamingNothingIsToldByTheFaultsAlone(t *testing.T) {
	in := crashBetweenCreates()
	in.Compared = nil
	in.Verdicts = []check.Verdict{{Property: "slow", At: 30 * time.Second, Detail: "the operator took too long"}}
	s := story.Build(in)
	if len(s.Events) == 0 {
		t.Fatal("no events, want the crash and the restart")
	}
	for i, e := range s.Events {
		crashed := false // the write a crash came right after is the crash's
		for _, l := range s.Links {
			crashed = crashed || l.From == i && l.Label == "then" && s.Events[l.To].Role == story.RoleFault
		}
		if e.Role != story.RoleFault && !crashed {
			t.Errorf("event %q of role %s, want the faults' only", e.Label, e.Role)
		}
	}
	if v := s.Verdicts[0]; v.Event != -1 || v.At != 30*time.Second {
		t.Errorf("the verdict is drawn at event %d, %v; want at no event, at its judged 30s", v.Event, v.At)
	}
}

// A workload step at the run's first instant takes the set-up's writes
// (the admin's at time 0, just before it) for its own: a step that deleted
// nothing is told as the user's step on the owner the set-up created.
func TestAStepAtTimeZeroTakesTheSetUpsWritesForItsOwn(t *testing.T) {
	in := leftBehind("seed 1\nat 0s delete object=Secret/default/other\nlag process=shop kind=/v1/ConfigMap min=0s max=7ms\n")
	// The set-up's create of Secret default/w (step 0), then the
	// workload's step at 0s, whose own call failed: it wrote nothing.
	steps := []trace.Step{in.Steps[0],
		{At: 0, Process: "admin", Op: "delete", Object: "Secret default/other", Result: "NotFound: not found"},
		{At: 0, Op: "action", Object: "delete", Result: "ok"}}
	in.Steps = append(steps, in.Steps[1:]...)
	var users []string
	for _, e := range story.Build(in).Events {
		if e.Role == story.RoleUser {
			users = append(users, e.Label)
		}
	}
	if len(users) != 2 || users[0] != "user: delete object=Secret/default/other" {
		t.Fatalf("the user's events %q, want the step at 0s (taken for the set-up's create of the owner) and the one at 2ms", users)
	}
}

// A label's width is its number of runes times one monospace character's:
// a label of wide letters and one of narrow letters of the same length get
// the same white box behind them.
func TestALabelsWidthIsItsRunesTimesAMonospaceCharacter(t *testing.T) {
	in := crashBetweenCreates()
	var svg bytes.Buffer
	if err := story.Build(in).WriteSVG(&svg); err != nil {
		t.Fatal(err)
	}
	box := regexp.MustCompile(`<rect x="[0-9.-]+" y="[0-9.-]+" width="([0-9.]+)" height="13" fill="white" opacity="0.85"/>\n<text [^>]*>([^<]*)</text>`)
	ms := box.FindAllStringSubmatch(svg.String(), -1)
	if len(ms) == 0 {
		t.Fatalf("no labels in the picture:\n%s", svg.String())
	}
	for _, m := range ms {
		w, _ := strconv.ParseFloat(m[1], 64)
		text := strings.NewReplacer("&lt;", "<", "&gt;", ">", "&amp;", "&", "&#34;", `"`, "&#39;", "'", "&quot;", `"`).Replace(m[2])
		if want := float64(len([]rune(text)))*6.7 + 2; w < want-0.1 || w > want+0.1 {
			t.Errorf("label %q: box %.1f wide, want %.1f (6.7 a rune, 2 of margin)", text, w, want)
		}
	}
}

// An absence is a create, a deletion or a finalization: a field the
// compared run wrote and this run did not (an update of an object both
// runs made) is not told, though the verdict names the object.
func TestAFieldTheComparedRunWroteIsNoAbsence(t *testing.T) {
	in := crashBetweenCreates()
	c := in.Compared.Steps
	upd := trace.Step{At: 3 * time.Millisecond, Process: "op", Controller: "configmap", Worker: 1, Reconcile: 1, Op: "update", Object: "Secret team/app-config", Result: "ok"}
	in.Compared.Steps = append(append(append([]trace.Step{}, c[:5]...), upd), c[5:]...)
	in.Verdicts = []check.Verdict{{Property: "converges", At: 3 * time.Minute,
		Detail: "Secret team/app-config: .data.key is \"b\" after the fault-free run of the same workload, \"a\" after this run"}}
	if s := story.Build(in); len(s.Absences) != 0 {
		t.Errorf("absences %+v, want none: an update is not told", s.Absences)
	}
}

// ownLogger logs through a logger of its own making, not the context's.
type ownLogger struct{ lines *[]string }

func (o ownLogger) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	log := funcr.New(func(prefix, args string) { *o.lines = append(*o.lines, args) }, funcr.Options{})
	log.Info("reconciling with my own logger", "object", req.Name)
	return reconcile.Result{}, nil
}

// A line logged through a logger the operator made itself is no step of
// the trace, so no story shows it; the context's logger's lines are steps.
func TestALineOfTheOperatorsOwnLoggerIsNotCaptured(t *testing.T) {
	var lines []string
	c, err := cluster.New(&plan.Plan{Seed: 1}, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(p *process.Process) error {
			return ctrl.NewControllerManagedBy(p.Manager()).For(&corev1.ConfigMap{}).Complete(ownLogger{&lines})
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
	if len(lines) == 0 {
		t.Fatal("the reconciler never logged")
	}
	for _, s := range c.Trace.Steps() {
		if s.Op == "log" && strings.Contains(s.Result, "my own logger") {
			t.Errorf("the own logger's line is a step: %v", s)
		}
	}
}

// A cached list is stale when its kind changed in its namespace after the
// cache: a change to an object its label selector leaves out makes it stale
// too, and the story labels it so.
func TestAListIsStaleByAChangeItsSelectorLeavesOut(t *testing.T) {
	p, err := plan.Parse("seed 1\nlag process=op kind=/v1/ConfigMap min=5s max=5s\n")
	if err != nil {
		t.Fatal(err)
	}
	c, err := cluster.New(p, cluster.Options{
		Scheme: clientgoscheme.Scheme,
		Processes: []process.Spec{{Name: "op", Setup: func(pr *process.Process) error {
			return ctrl.NewControllerManagedBy(pr.Manager()).For(&corev1.ConfigMap{}).Complete(reconcile.Func(func(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
				var l corev1.ConfigMapList
				err := pr.Manager().GetClient().List(ctx, &l, client.InNamespace("default"), client.MatchingLabels{"app": "web"})
				return reconcile.Result{RequeueAfter: time.Second}, err
			}))
		}}},
		Setup: func(c *cluster.Cluster) error {
			for _, cm := range []*corev1.ConfigMap{
				{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "web", Labels: map[string]string{"app": "web"}}},
				{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "noise"}},
			} {
				if err := c.Admin().Create(context.Background(), cm); err != nil {
					return err
				}
			}
			return nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(10 * time.Second)
	noise := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "noise"}, Data: map[string]string{"k": "v"}}
	if err := c.Admin().Update(context.Background(), noise); err != nil {
		t.Fatal(err)
	}
	c.RunFor(2 * time.Second)
	stale := false
	for _, s := range c.Trace.Steps() {
		if s.Process == "op" && trace.IsList(s.Op) && s.At > 10*time.Second && s.Stale() && s.Items == 1 {
			stale = true
		}
	}
	if !stale {
		t.Fatalf("no list of app=web after the change to noise is stale; want one (the selector is not taken into account):\n%v", c.Trace.Steps())
	}
	s := story.Build(story.Input{Title: "noise", Steps: c.Trace.Steps(), Log: c.Server.Log(), Start: clock.Epoch,
		Verdicts: []check.Verdict{{Property: "p", At: 12 * time.Second, Detail: "ConfigMap default/web is wrong"}}})
	var labels []string
	for _, e := range s.Events {
		labels = append(labels, e.Label)
	}
	if !strings.Contains(strings.Join(labels, "\n"), "stale list of ConfigMap default/*: 1 item, cache at rv=6, current 7") {
		t.Errorf("the story's events %q, want the list of app=web told as stale", labels)
	}
}
