package listermutate_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
)

func TestTheStamperWritesOneKindNoStatusAndNoFinalizer(t *testing.T) {
	r := faultfree.Replay(t, options(false))
	faultfree.NoWrite(t, r, "stamp", "/status")
	n := 0
	for _, s := range r.Steps {
		if s.Process == "stamp" && faultfree.IsWrite(s.Op) {
			n++
			if !strings.HasPrefix(s.Object, "ConfigMap ") {
				t.Errorf("the stamper writes another kind: %s", s)
			}
		}
	}
	var cm corev1.ConfigMap
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: "web"}, &cm); err != nil {
		t.Fatal(err)
	}
	if n == 0 || len(cm.Annotations) != 1 || len(cm.Finalizers) != 0 {
		t.Errorf("%d writes; the ConfigMap's annotations %v and finalizers %v; want one annotation, no finalizer", n, cm.Annotations, cm.Finalizers)
	}
}
