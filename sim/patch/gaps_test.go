package patch

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"strings"
	"testing"

	jsonpatch "gopkg.in/evanphx/json-patch.v4"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
)

// invalidOnPatch checks that err is a 422 Invalid with one cause on field
// "patch" and returns its message.
func invalidOnPatch(t *testing.T, err error) string {
	t.Helper()
	if !apierrors.IsInvalid(err) {
		t.Fatalf("error %v, want 422 Invalid", err)
	}
	s := statusOf(t, err)
	if s.Details == nil || len(s.Details.Causes) != 1 || s.Details.Causes[0].Field != "patch" {
		t.Fatalf("details %+v, want one cause on field patch", s.Details)
	}
	return s.Message
}

func TestServerSideApplyIsRefusedWith415(t *testing.T) {
	_, err := Apply(configMap(), types.ApplyYAMLPatchType, []byte(`{"apiVersion":"v1","kind":"ConfigMap"}`), builtin)
	if !apierrors.IsUnsupportedMediaType(err) || !strings.Contains(err.Error(), "server-side apply is not supported by the ctrlsim apiserver model") {
		t.Fatalf("apply patch: %v, want 415 naming the model", err)
	}
}

func TestAPatchThatChangesApiVersionIsInvalidAndOneThatRemovesItChangesNothing(t *testing.T) {
	opts := Options{Strategic: true, GroupResource: configMaps, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap")}
	cm := configMap()
	cm.APIVersion, cm.Kind = "v1", "ConfigMap"
	_, err := Apply(cm, types.MergePatchType, []byte(`{"apiVersion":"v2"}`), opts)
	if msg := invalidOnPatch(t, err); !strings.Contains(msg, "does not let a patch change apiVersion or kind") {
		t.Fatalf("message %q", msg)
	}
	got := mustApply(t, cm, types.JSONPatchType, `[{"op":"remove","path":"/apiVersion"},{"op":"remove","path":"/kind"}]`, opts)
	if tm := got.(*corev1.ConfigMap).TypeMeta; tm.APIVersion != "v1" || tm.Kind != "ConfigMap" {
		t.Fatalf("after removing apiVersion and kind: %+v, want them unchanged", tm)
	}
}

func TestACustomResourceOfTheWrongTypeFailsInDecodingNotInSchemaValidation(t *testing.T) {
	_, err := Apply(widget(), types.MergePatchType, []byte(`{"spec":{"size":"big"}}`), custom)
	if msg := invalidOnPatch(t, err); !strings.Contains(msg, "json: cannot unmarshal string") {
		t.Fatalf("message %q, want the decoder's", msg)
	}
	got, warnings, err := ApplyWithWarnings(widget(), types.MergePatchType, []byte(`{"spec":{"color":"red"}}`), custom)
	if err != nil || got.(*Widget).Spec.Size != 1 || len(warnings) != 1 {
		t.Fatalf("an unknown field: %v, %v, warnings %q; want it dropped with one warning", got, err, warnings)
	}
}

func TestJSONPatchCopiesAreNotLimitedInSize(t *testing.T) {
	if jsonpatch.AccumulatedCopySizeLimit != 0 {
		t.Fatalf("jsonpatch.AccumulatedCopySizeLimit = %d, want 0 (unlimited)", jsonpatch.AccumulatedCopySizeLimit)
	}
	cm := configMap()
	const size = 800 << 10 // four copies are 3.2 MiB, over the real limit of 3 MiB
	cm.Data["big"] = strings.Repeat("x", size)
	ops := `[{"op":"copy","from":"/data/big","path":"/data/b1"},{"op":"copy","from":"/data/big","path":"/data/b2"},` +
		`{"op":"copy","from":"/data/big","path":"/data/b3"},{"op":"copy","from":"/data/big","path":"/data/b4"}]`
	got := mustApply(t, cm, types.JSONPatchType, ops, builtin)
	if len(got.(*corev1.ConfigMap).Data["b4"]) != size {
		t.Fatalf("3.2 MiB of copies: b4 not copied")
	}
}

func TestErrorMessagesNameTheGoTypesTheyDecodeInto(t *testing.T) {
	_, err := Apply(widget(), types.MergePatchType, []byte(`{"spec":{"size":"big"}}`), custom)
	if msg := invalidOnPatch(t, err); !strings.Contains(msg, "Go struct field WidgetSpec.spec.size") {
		t.Fatalf("message %q, want it to name the test's type WidgetSpec", msg)
	}
}

func TestDecodingErrorsInAMapFieldQuoteWhicheverEntryComesFirst(t *testing.T) {
	// Two wrong entries of data: the converter reports the first it meets,
	// in map order.
	body := []byte(`{"data":{"a":1,"b":true}}`)
	for range 10 {
		_, err := Apply(configMap(), types.StrategicMergePatchType, body, builtin)
		msg := invalidOnPatch(t, err)
		if !strings.HasSuffix(msg, "unrecognized type: string") && !strings.HasSuffix(msg, "cannot convert int64 to string") {
			t.Fatalf("message %q, want it to quote entry a or b", msg)
		}
	}
}
