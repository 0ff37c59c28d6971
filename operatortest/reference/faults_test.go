package reference_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ctrlsim/ctrlsim/operatortest/internal/optest"

	"github.com/ctrlsim/ctrlsim/operatortest/search"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/plan"
)

// A fault profile narrows what plans draw: only its classes, on its
// processes and kinds (no lag of every kind at once), with its own API
// faults among the templates. Without one, every class is drawn.
func TestAFaultProfileNarrowsWhatPlansDraw(t *testing.T) {
	patch422 := apiserver.Fault{Verb: "patch", Resource: "configmaps", Code: 422, Field: "metadata.annotations", Message: "Too long"}
	o := optest.AppOptions(optest.Child())
	o.Faults = world.Faults{
		Classes: []plan.FaultKind{plan.Lag, plan.API},
		Kinds:   []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("Secret")},
		API:     []apiserver.Fault{patch422},
	}
	narrowed := drawnFaults(t, optest.TestWorld(t, o).Space, 300)
	for _, f := range narrowed {
		switch {
		case f.Kind != plan.Lag && f.Kind != plan.API:
			t.Fatalf("drew %s, a class the profile leaves out", f)
		case f.Kind == plan.Lag && f.Resource != "/v1/Secret":
			t.Fatalf("drew %s: the profile lags Secrets' caches only", f)
		}
	}
	if !slices.ContainsFunc(narrowed, func(f plan.Fault) bool { return f.Kind == plan.API && f.API == patch422 }) {
		t.Fatalf("300 plans never drew the profile's own API fault %s", patch422)
	}
	if !slices.ContainsFunc(narrowed, func(f plan.Fault) bool { return f.Kind == plan.Lag }) {
		t.Fatal("300 plans never drew a lag, a class the profile keeps")
	}

	all := drawnFaults(t, optest.TestWorld(t, optest.AppOptions(optest.Child())).Space, 300)
	for _, k := range []plan.FaultKind{plan.Crash, plan.Hold, plan.Stale} {
		if !slices.ContainsFunc(all, func(f plan.Fault) bool { return f.Kind == k }) {
			t.Errorf("without a profile, 300 plans never drew a %s fault", k)
		}
	}
}

// A profile that names what the world does not have is refused with one
// line naming it, as a typo in Disable is.
func TestAFaultProfileNamingNothingOfTheWorldIsRefused(t *testing.T) {
	for _, c := range []struct {
		faults world.Faults
		want   string
	}{
		{world.Faults{Classes: []plan.FaultKind{"lagg"}}, `unknown fault class "lagg"`},
		{world.Faults{Classes: []plan.FaultKind{plan.Stop}}, `unknown fault class "stop"`},
		{world.Faults{Processes: []string{"operator"}}, `"operator" is no operator process (the processes: op)`},
		{world.Faults{Kinds: []schema.GroupVersionKind{{Group: "example.com", Version: "v1", Kind: "Widget"}}}, "example.com/v1/Widget is no kind the apiserver serves"},
		{world.Faults{Kinds: []schema.GroupVersionKind{corev1.SchemeGroupVersion.WithKind("PodList")}}, "/v1/PodList is no kind the apiserver serves"},
		{world.Faults{API: []apiserver.Fault{{Verb: "patch", Code: 418}}}, "Options.Faults.API[0] (verb=patch code=418): Code 418 is none"},
	} {
		o := optest.AppOptions(optest.Child())
		o.NoWorkloadModels = true // the world's kinds are then the app's own
		o.Faults = c.faults
		_, err := search.NewWorld(o.WithDefaults())
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("Faults %+v: got error %v, want one line with %q", c.faults, err, c.want)
		}
	}
}

// Faults.Kinds takes every kind a process may cache, not only the kinds the
// world collects: the workload models' Pods and PersistentVolumeClaims (an
// operator of a StatefulSet caches both, and the sweep aims at them) are
// lagged and held as the profile says.
func TestAFaultProfileMayNameAnyKindTheApiserverServes(t *testing.T) {
	o := optest.AppOptions(optest.Child())
	o.Faults = world.Faults{Classes: []plan.FaultKind{plan.Lag, plan.Hold}, Kinds: []schema.GroupVersionKind{
		corev1.SchemeGroupVersion.WithKind("Pod"), corev1.SchemeGroupVersion.WithKind("PersistentVolumeClaim")}}
	w, err := search.NewWorld(o.WithDefaults())
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]bool{}
	for _, f := range drawnFaults(t, w.Space, 100) {
		got[f.Resource] = true
	}
	if len(got) != 2 || !got["/v1/Pod"] || !got["/v1/PersistentVolumeClaim"] {
		t.Errorf("100 plans lagged or held %v, want exactly /v1/Pod and /v1/PersistentVolumeClaim", got)
	}
}

// drawnFaults are the faults of n plans drawn from sp.
func drawnFaults(t *testing.T, sp plan.Space, n int) []plan.Fault {
	t.Helper()
	g := plan.Generator(sp)
	var out []plan.Fault
	for i := range n {
		out = append(out, g.Example(i).Faults...)
	}
	return out
}
