package bigrecreate_test

// The tests of this file show the Known gaps of doc.go, each as it is
// today: a change that closes a gap breaks its test, and the item goes with
// it.

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/bigrecreate"
	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// run replays the correct operator on seed 1 with script as the workload.
func run(t *testing.T, script ...operatortest.Step) *operatortest.Replayed {
	t.Helper()
	o := options(false)
	o.Workload.Script = script
	return faultfree.Replay(t, o)
}

// members are the members the App's ConfigMaps name, in the final state.
func members(t *testing.T, r *operatortest.Replayed) []string {
	t.Helper()
	var cms corev1.ConfigMapList
	if err := r.Final.List(&cms, client.InNamespace("shop"), client.HasLabels{bigrecreate.MemberLabel}); err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, cm := range cms.Items {
		out = append(out, cm.Labels[bigrecreate.MemberLabel])
	}
	return out
}

func TestMembersAreObjectsOnlyAndReadyWhenMade(t *testing.T) {
	r := run(t, operatortest.Create(0, app()))
	var pods corev1.PodList
	var sets appsv1.StatefulSetList
	for _, l := range []client.ObjectList{&pods, &sets} {
		if err := r.Final.List(l, client.InNamespace("shop")); err != nil {
			t.Fatal(err)
		}
	}
	if len(pods.Items) != 0 || len(sets.Items) != 0 {
		t.Errorf("%d pods and %d StatefulSets, want none", len(pods.Items), len(sets.Items))
	}
	var a bigrecreate.App
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &a); err != nil {
		t.Fatal(err)
	}
	if m := members(t, r); a.Status.ReadyMembers != 5 || len(m) != 5 {
		t.Errorf("%d members ready with the ConfigMaps of %v and no pod; want 5 ready, their objects made", a.Status.ReadyMembers, m)
	}
}

func TestALoweredMemberCountLeavesTheMembersBeyondIt(t *testing.T) {
	r := run(t, operatortest.Create(0, app()), operatortest.Patch(20*time.Second, app(), `{"spec":{"members":3}}`))
	var a bigrecreate.App
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &a); err != nil {
		t.Fatal(err)
	}
	if a.Spec.Members != 3 || a.Status.ObservedGeneration != a.Generation {
		t.Fatalf("the App has %d members, generation %d observed %d: the patch did not land or was not seen", a.Spec.Members, a.Generation, a.Status.ObservedGeneration)
	}
	if m := members(t, r); len(m) != 5 {
		t.Errorf("after members went from 5 to 3 the ConfigMaps of members %v are left; want all 5 (no scale-down)", m)
	}
}
