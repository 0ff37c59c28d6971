package builtins

// The tests of this file, with gaps_test.go's, show the Known gaps of
// doc.go, each as it is today: a change that closes a gap breaks its test,
// and the item goes with it.

import (
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client/apiutil"

	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// HorizontalPodAutoscalers are served as autoscaling/v1 and v2: held for an
// owner relation and for a deleting namespace, the collector and the
// namespace controller get them in v2 alone, so an HPA written as v1 (stored
// apart by the apiserver model) is neither collected nor deleted.
func TestAHeldKindIsCollectedAndDeletedInItsPreferredVersionOnly(t *testing.T) {
	hpa := schema.GroupKind{Group: "autoscaling", Kind: "HorizontalPodAutoscaler"}
	held := &Holding{Kinds: KindSet{}, Owned: KindSet{hpa}, Content: KindSet{hpa}}
	var collected, content []schema.GroupVersionKind
	p, err := plan.Parse("seed 1\n")
	if err != nil {
		t.Fatal(err)
	}
	w := World{Scheme: clientgoscheme.Scheme}
	c, err := cluster.New(p, cluster.Options{Scheme: w.Scheme, Processes: []process.Spec{{Name: "kube-controller-manager", Setup: func(pr *process.Process) error {
		lists, objs, err := w.builtinKinds(pr, held)
		if err != nil {
			return err
		}
		for _, o := range objs {
			gvk, err := apiutil.GVKForObject(o, w.Scheme)
			if err != nil {
				return err
			}
			collected = append(collected, gvk)
		}
		for _, l := range lists {
			gvk, err := apiutil.GVKForObject(l, w.Scheme)
			if err != nil {
				return err
			}
			content = append(content, gvk)
		}
		return nil
	}}}})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.RunFor(time.Second) // the process starts
	want := schema.GroupVersionKind{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"}
	if len(collected) != 1 || collected[0] != want {
		t.Errorf("collected %v, want %v alone", collected, want)
	}
	if wantList := want.GroupVersion().WithKind(want.Kind + "List"); len(content) != 1 || content[0] != wantList {
		t.Errorf("content %v, want %v alone", content, wantList)
	}
}
