package canon

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	k8stypes "k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// A refusal's text is compared by its cause wherever it appears: a Ready
// condition whose message carries the error of the create in one run and of
// the update in another (the same invalid value of the user's) is one
// state; a message naming another value is another.
func TestARefusalCarriedInAMessageIsComparedByItsCause(t *testing.T) {
	c := NewTokens(nil)
	create := `StatefulSet.apps "carts" is invalid: spec.podManagementPolicy: Invalid value: "s": must be 'OrderedReady' or 'Parallel'`
	update := `StatefulSet.apps "carts" is invalid: [spec.podManagementPolicy: Invalid value: "s": field is immutable, spec.podManagementPolicy: Invalid value: "s": must be 'OrderedReady' or 'Parallel']`
	if a, b := c.Text(create), c.Text(update); a != b {
		t.Errorf("one refusal met by a create and an update reads as two:\n%s\n%s", a, b)
	}
	if c.Text(strings.ReplaceAll(update, `"s"`, `"t"`)) == c.Text(create) {
		t.Errorf("a refusal of another value reads as the same")
	}
	// One reconcile's errors joined (an aggregate: "[a, b]") name the
	// object refused as the lone refusal does, and a conflict beside it is
	// not a cause of the refusal.
	joined := "[" + create + `, Operation cannot be fulfilled on statefulsets.apps "carts": the object has been modified; please apply your changes to the latest version and try again]`
	if a, b := c.Text(joined), c.Text(create); a != b {
		t.Errorf("a refusal joined with a conflict reads as another refusal:\n%s\n%s", a, b)
	}
	internal := `Internal error occurred: failed to parse service IP "s"`
	if c.Text(internal) != internal {
		t.Errorf("an internal error is read as a cause: %s", c.Text(internal))
	}
	if got := c.Text("bound to Secret carts-binding"); got != "bound to Secret carts-binding" {
		t.Errorf("a message with no refusal is changed: %s", got)
	}
}

// A uid is named by the object it belongs to wherever it appears, so two
// runs that gave one object two uids read the same; another object's uid
// reads as that object.
func TestAUIDIsNamedByItsObject(t *testing.T) {
	text := func(uid string, objs ...*corev1.ConfigMap) string {
		var log []apiserver.Event
		for _, o := range objs {
			log = append(log, apiserver.Event{Type: watch.Added, GVK: corev1.SchemeGroupVersion.WithKind("ConfigMap"), Object: o})
		}
		return NewTokens(log).Text("owner " + uid)
	}
	cm := func(name, uid string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: name, UID: k8stypes.UID(uid)}}
	}
	a := text("uid-1", cm("app", "uid-1"))
	b := text("uid-7", cm("first", "uid-3"), cm("app", "uid-7"))
	if a != b || !strings.Contains(a, "<uid:ConfigMap shop/app>") {
		t.Errorf("one object's uid in two runs: %q and %q, want both to name ConfigMap shop/app", a, b)
	}
	if c := text("uid-3", cm("first", "uid-3"), cm("app", "uid-7")); c == a {
		t.Errorf("another object's uid reads as the first: %q", c)
	}
}
