package differential

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// kube-apiserver reports two invalid fields in Go map order, so the two orders of
// one answer compare equal; a different cause still shows.
func TestInvalidCausesCompareInEitherOrder(t *testing.T) {
	gk := schema.GroupKind{Group: "test.ctrlsim.dev", Kind: "Gadget"}
	size := field.Invalid(field.NewPath("spec", "size"), -1, "should be greater than or equal to 0")
	color := field.NotSupported(field.NewPath("spec", "color"), "purple", []string{"blue", "red"})
	other := field.Invalid(field.NewPath("spec", "size"), -2, "should be greater than or equal to 0")
	norm := func(errs ...*field.Error) *ErrorOutcome {
		n := &normaliser{uids: map[string]string{}, ranks: map[string]string{}, gen: map[string]string{}}
		return n.error(apierrors.NewInvalid(gk, "g3", field.ErrorList(errs)))
	}
	a, b := norm(size, color), norm(color, size)
	if a.Message != b.Message || a.Details.Causes[0] != b.Details.Causes[0] || a.Details.Causes[1] != b.Details.Causes[1] {
		t.Fatalf("one answer in two orders compares unequal:\n%+v\n%+v", a, b)
	}
	if c := norm(other, color); c.Message == a.Message {
		t.Fatalf("a different cause compares equal: %q", c.Message)
	}
}
