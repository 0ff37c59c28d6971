package patch

import (
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
)

// errorCase is one patch that must fail. message is the whole message when exact, else a part of it.
type errorCase struct {
	name    string
	current func() runtime.Object
	pt      types.PatchType
	body    string
	opts    Options
	is      func(error) bool
	code    int32
	reason  metav1.StatusReason
	message string
	exact   bool
	field   string // the field of the single cause, when there is one
}

const (
	// The only message the real apiserver gives for a JSON patch operation that fails: the handler passes
	// the json-patch error to NewGenericServerResponse, which keeps it only for codes other than 422.
	rejected = "the server rejected our request due to an error in our request"

	unsupportedOnCR = "the body of the request was in an unknown format - accepted media types include: " +
		"application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml"
)

func isUnknown(err error) bool {
	return apierrors.ReasonForError(err) == metav1.StatusReasonUnknown
}

func TestErrors(t *testing.T) {
	strict := Options{Strategic: true, GroupResource: configMaps, PatchOptions: metav1.PatchOptions{FieldValidation: metav1.FieldValidationStrict}}
	ignore := Options{Strategic: true, GroupResource: configMaps, PatchOptions: metav1.PatchOptions{FieldValidation: metav1.FieldValidationIgnore}}
	cmKind := Options{Strategic: true, GroupResource: configMaps, Kind: corev1.SchemeGroupVersion.WithKind("ConfigMap")}

	cases := []errorCase{
		// Media types: PatchResource (custom resources) and go-restful's Consumes (built-in resources).
		{
			name:    "strategic merge patch on a custom resource is an unsupported media type",
			current: wid, pt: types.StrategicMergePatchType, body: `{"spec":{"size":2}}`, opts: custom,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: unsupportedOnCR, exact: true,
		},
		{
			name:    "server-side apply is not modelled: 415 naming the ctrlsim model (built-in resource)",
			current: cm, pt: types.ApplyPatchType, body: `{"apiVersion":"v1","kind":"ConfigMap"}`, opts: builtin,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: "server-side apply is not supported by the ctrlsim apiserver model: the body of the request was in an unknown format - " +
				"accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json",
			exact: true,
		},
		{
			name:    "server-side apply is not modelled: 415 naming the ctrlsim model (custom resource)",
			current: wid, pt: types.ApplyYAMLPatchType, body: `{}`, opts: custom,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: "server-side apply is not supported by the ctrlsim apiserver model: the body of the request was in an unknown format - " +
				"accepted media types include: application/json-patch+json, application/merge-patch+json",
			exact: true,
		},
		{
			name:    "CBOR apply on a built-in resource finds no go-restful route (CBORServingAndStorage is off by default)",
			current: cm, pt: types.ApplyCBORPatchType, body: "\xa0", opts: builtin,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: "415: Unsupported Media Type", exact: true,
		},
		{
			name:    "CBOR apply on a custom resource fails PatchResource's media type check",
			current: wid, pt: types.ApplyCBORPatchType, body: "\xa0", opts: custom,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: unsupportedOnCR, exact: true,
		},
		{
			name:    "a Content-Type that is no patch type is unsupported",
			current: cm, pt: "application/json", body: `{}`, opts: builtin,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: "415: Unsupported Media Type", exact: true,
		},
		{
			name:    "an empty Content-Type is unsupported",
			current: wid, pt: "", body: `{}`, opts: custom,
			is: apierrors.IsUnsupportedMediaType, code: 415, reason: metav1.StatusReasonUnsupportedMediaType,
			message: unsupportedOnCR, exact: true,
		},

		// Request options (ValidatePatchOptions).
		{
			name:    "force may not be set on a non-apply patch",
			current: cm, pt: types.MergePatchType, body: `{}`,
			opts: Options{Strategic: true, GroupResource: configMaps, PatchOptions: metav1.PatchOptions{Force: ptr.To(true)}},
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `PatchOptions.meta.k8s.io "" is invalid: force: Forbidden: may not be specified for non-apply patch`, exact: true,
			field: "force",
		},
		{
			name:    "an unknown fieldValidation directive is invalid",
			current: cm, pt: types.MergePatchType, body: `{}`,
			opts: Options{Strategic: true, GroupResource: configMaps, PatchOptions: metav1.PatchOptions{FieldValidation: "Loud"}},
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `fieldValidation: Unsupported value: "Loud"`, field: "fieldValidation",
		},

		// Bodies that are not JSON (validateAndTranscodePatch) or not the right shape.
		{
			name: "a merge patch that is not JSON is a bad request", current: cm, pt: types.MergePatchType, body: `{"data":`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid JSON patch", exact: true,
		},
		{
			name: "a strategic merge patch that is not JSON is a bad request", current: cm, pt: types.StrategicMergePatchType, body: `{data:1}`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid JSON patch", exact: true,
		},
		{
			name: "a JSON patch that is not JSON is a bad request", current: cm, pt: types.JSONPatchType, body: `[{"op":"add",]`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid JSON patch", exact: true,
		},
		{
			name: "an empty body is a bad request", current: cm, pt: types.MergePatchType, body: ``, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid JSON patch", exact: true,
		},
		{
			name: "a merge patch of null is a bad request (json-patch's ErrBadJSONPatch)", current: cm, pt: types.MergePatchType, body: `null`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "Invalid JSON Patch", exact: true,
		},
		{
			name: "a merge patch that is not an object is a bad request", current: cm, pt: types.MergePatchType, body: `[]`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "error decoding patch: json: cannot unmarshal array into Go value of type map[string]interface {}", exact: true,
		},
		{
			name:    "with fieldValidation Ignore, a merge patch that is an array replaces the object and fails to decode",
			current: cm, pt: types.MergePatchType, body: `[]`, opts: ignore,
			is: apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: "couldn't get version/kind", field: "patch",
		},
		{
			name: "a strategic merge patch that is not an object is a bad request", current: cm, pt: types.StrategicMergePatchType, body: `[]`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "json: cannot unmarshal array into Go value of type map[string]interface {}", exact: true,
		},
		{
			name: "a JSON patch that is not a list of operations is a bad request", current: cm, pt: types.JSONPatchType, body: `{"op":"add"}`, opts: builtin,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp", exact: true,
		},
		{
			name: "with fieldValidation Ignore, the same JSON patch fails in jsonpatch.DecodePatch", current: cm, pt: types.JSONPatchType, body: `{"op":"add"}`, opts: ignore,
			is: apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "json: cannot unmarshal object into Go value of type jsonpatch.Patch", exact: true,
		},

		// JSON patch operations that fail: all 422 with one generic message.
		{
			name: "a failing test operation", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"test","path":"/metadata/resourceVersion","value":"40"},{"op":"replace","path":"/data/size","value":"small"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "a test of a missing path", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"test","path":"/data/shape","value":"round"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "remove of a missing path", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"remove","path":"/data/shape"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "replace of a missing path", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"replace","path":"/metadata/annotations/a","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "a list index out of range", current: dep, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"replace","path":"/spec/template/spec/containers/7/image","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "a pointer through a string", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"add","path":"/data/color/tone","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "an add under a missing parent", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"add","path":"/metadata/annotations/a","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "a move from a missing path", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"move","from":"/data/shape","path":"/data/form"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "an unknown operation", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"frobnicate","path":"/data/size","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},
		{
			name: "an operation without a path", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"add","value":"x"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid, message: rejected, exact: true,
		},

		// Patched objects that do not decode into the Go type: 422 with one cause on field "patch".
		{
			name: "merge patch: a string where an integer goes", current: dep, pt: types.MergePatchType, opts: builtin,
			body: `{"spec":{"replicas":"three"}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "json: cannot unmarshal string into Go struct field DeploymentSpec.spec.replicas of type int32", field: "patch",
		},
		{
			name: "strategic merge patch: a string where an integer goes", current: dep, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"spec":{"replicas":"three"}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `Invalid value: "map[spec:map[replicas:three]]": unrecognized type: int32`, field: "patch",
		},
		{
			name: "JSON patch: a number where a string goes", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"replace","path":"/data/size","value":3}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "json: cannot unmarshal number into Go struct field ConfigMap.data of type string", field: "patch",
		},
		{
			name: "strategic merge patch: a map where a list goes", current: dep, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"spec":{"template":{"spec":{"containers":{"name":"app"}}}}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "cannot restore slice from map", field: "patch",
		},
		{
			name: "custom resource: a string where an integer goes", current: wid, pt: types.MergePatchType, opts: custom,
			body: `{"spec":{"size":"big"}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "json: cannot unmarshal string into Go struct field WidgetSpec.spec.size of type int32", field: "patch",
		},
		{
			name: "merge patch: a change of kind", current: cm, pt: types.MergePatchType, opts: cmKind,
			body: `{"kind":"Secret"}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "does not let a patch change apiVersion or kind", field: "patch",
		},
		{
			name: "JSON patch: a change of apiVersion", current: cm, pt: types.JSONPatchType, opts: cmKind,
			body: `[{"op":"replace","path":"/apiVersion","value":"v2"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: "does not let a patch change apiVersion or kind", field: "patch",
		},

		// fieldValidation Strict.
		{
			name: "Strict: an unknown field in a merge patch", current: cm, pt: types.MergePatchType, opts: strict,
			body: `{"spec":{"replicas":3}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `strict decoding error: unknown field "spec"`, field: "patch",
		},
		{
			name: "Strict: a duplicate field in a merge patch", current: cm, pt: types.MergePatchType, opts: strict,
			body: `{"data":{"size":"small"},"data":{"size":"tiny"}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `strict decoding error: duplicate field "data"`, field: "patch",
		},
		{
			name: "Strict: an unknown field in a strategic merge patch", current: dep, pt: types.StrategicMergePatchType, opts: strict,
			body: `{"spec":{"replica":3}}`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `strict decoding error: unknown field "spec.replica"`, field: "patch",
		},
		{
			name: "Strict: an unknown field in a JSON patch operation", current: cm, pt: types.JSONPatchType, opts: strict,
			body: `[{"op":"add","path":"/data/shape","valeu":"round"}]`,
			is:   apierrors.IsInvalid, code: 422, reason: metav1.StatusReasonInvalid,
			message: `strict decoding error: json patch unknown field "[0].valeu"`, field: "patch",
		},

		// The patched object's name and namespace (checkName, EnsureObjectNamespaceMatchesRequestNamespace).
		{
			name: "a patch may not change metadata.name", current: cm, pt: types.MergePatchType, opts: builtin,
			body: `{"metadata":{"name":"other"}}`,
			is:   apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "the name of the object (other) does not match the name on the URL (settings)", exact: true,
		},
		{
			name: "a patch may not remove metadata.name", current: cm, pt: types.JSONPatchType, opts: builtin,
			body: `[{"op":"remove","path":"/metadata/name"}]`,
			is:   apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "the name of the object () does not match the name on the URL (settings)", exact: true,
		},
		{
			name: "a patch may not move an object to another namespace", current: cm, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"metadata":{"namespace":"team-b"}}`,
			is:   apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "the namespace of the provided object does not match the namespace sent on the request", exact: true,
		},
		{
			name: "a top-level $patch: delete empties the object, so its name no longer matches", current: cm, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"$patch":"delete"}`,
			is:   apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest,
			message: "the name of the object () does not match the name on the URL (settings)", exact: true,
		},

		// Strategic merge patch errors (interpretStrategicMergePatchError).
		{
			name: "$retainKeys that is not a list is a bad request", current: dep, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"spec":{"strategy":{"$retainKeys":"type"}}}`,
			is:   apierrors.IsBadRequest, code: 400, reason: metav1.StatusReasonBadRequest, message: "invalid patch format of retainKeys", exact: true,
		},
		{
			name: "$setElementOrder that is not a list is an unclassified error: 500, reason Unknown", current: cm, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"metadata":{"$setElementOrder/finalizers":"example.com/first","finalizers":["example.com/first"]}}`,
			is:   isUnknown, code: 500, reason: metav1.StatusReasonUnknown, message: "expected a []interface {}, but received a string", exact: true,
		},
		{
			name: "a list item without its merge key is an unclassified error: 500, reason Unknown", current: dep, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"spec":{"template":{"spec":{"containers":[{"image":"x"}]}}}}`,
			is:   isUnknown, code: 500, reason: metav1.StatusReasonUnknown,
			message: "map: map[image:x] does not contain declared merge key: name", exact: true,
		},
		{
			name: "an unknown $patch directive is an unclassified error: 500, reason Unknown", current: dep, pt: types.StrategicMergePatchType, opts: builtin,
			body: `{"spec":{"template":{"spec":{"containers":[{"name":"app","$patch":"frob"}]}}}}`,
			is:   isUnknown, code: 500, reason: metav1.StatusReasonUnknown,
			message: "unknown patch type: frob in map: map[$patch:frob name:app]", exact: true,
		},
		{
			// Found by TestAnyBodyGivesAnObjectOrAStatus: strategicpatch panics (hash of unhashable type).
			name: "a patch on which strategicpatch panics is a 500 InternalError, as the apiserver's panic recovery answers", current: dep,
			pt: types.StrategicMergePatchType, body: `{"$retainKeys":[[]]}`, opts: Options{Strategic: true, GroupResource: deployments},
			is: apierrors.IsInternalError, code: 500, reason: metav1.StatusReasonInternalError,
			message: `an error on the server ("This request caused apiserver to panic. Look in the logs for details.") ` +
				`has prevented the request from succeeding (patch deployments.apps web)`, exact: true,
		},
	}

	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			current := tc.current()
			before := current.DeepCopyObject()
			got, err := Apply(current, tc.pt, []byte(tc.body), tc.opts)
			if err == nil {
				t.Fatalf("Apply succeeded with %v, want an error", got)
			}
			if got != nil {
				t.Errorf("Apply returned an object with its error: %v", got)
			}
			if !tc.is(err) {
				t.Errorf("error %q has reason %q, want the %s check to hold", err, apierrors.ReasonForError(err), tc.reason)
			}
			status := statusOf(t, err)
			if status.Code != tc.code || status.Reason != tc.reason || status.Status != metav1.StatusFailure {
				t.Errorf("status = %d %q %q, want %d %q Failure", status.Code, status.Reason, status.Status, tc.code, tc.reason)
			}
			if tc.exact && status.Message != tc.message {
				t.Errorf("message = %q\nwant      %q", status.Message, tc.message)
			}
			if !tc.exact && !strings.Contains(status.Message, tc.message) {
				t.Errorf("message = %q, want it to contain %q", status.Message, tc.message)
			}
			if tc.field != "" {
				if status.Details == nil || len(status.Details.Causes) != 1 || status.Details.Causes[0].Field != tc.field {
					t.Errorf("details = %+v, want one cause on field %q", status.Details, tc.field)
				}
			}
			assertSame(t, before, current)
		})
	}
}

// The real apiserver reads at most MaxRequestBodyBytes of a body (limitedReadBody); at the limit a patch
// is still applied.
func TestBodySizeLimit(t *testing.T) {
	body := func(n int) []byte {
		const prefix, suffix = `{"data":{"big":"`, `"}}`
		return []byte(prefix + strings.Repeat("x", n-len(prefix)-len(suffix)) + suffix)
	}
	got, err := Apply(configMap(), types.MergePatchType, body(MaxRequestBodyBytes), builtin)
	if err != nil || len(got.(*corev1.ConfigMap).Data["big"]) == 0 {
		t.Fatalf("a body of exactly %d bytes: got error %v, want it applied", MaxRequestBodyBytes, err)
	}

	_, err = Apply(configMap(), types.MergePatchType, body(MaxRequestBodyBytes+1), builtin)
	if !apierrors.IsRequestEntityTooLargeError(err) {
		t.Fatalf("a body of %d bytes: got %v, want RequestEntityTooLarge", MaxRequestBodyBytes+1, err)
	}
	if s := statusOf(t, err); s.Code != http.StatusRequestEntityTooLarge || s.Message != "Request entity too large: limit is 3145728" {
		t.Errorf("status = %d %q", s.Code, s.Message)
	}
}

// A JSON patch may hold at most MaxJSONPatchOperations operations (jsonPatcher.applyJSPatch).
func TestJSONPatchOperationLimit(t *testing.T) {
	ops := func(n int) []byte {
		op := `{"op":"test","path":"/metadata/name","value":"settings"}`
		return []byte("[" + strings.TrimSuffix(strings.Repeat(op+",", n), ",") + "]")
	}
	if _, err := Apply(configMap(), types.JSONPatchType, ops(MaxJSONPatchOperations), builtin); err != nil {
		t.Fatalf("%d operations: %v, want them applied", MaxJSONPatchOperations, err)
	}
	_, err := Apply(configMap(), types.JSONPatchType, ops(MaxJSONPatchOperations+1), builtin)
	if !apierrors.IsRequestEntityTooLargeError(err) {
		t.Fatalf("%d operations: got %v, want RequestEntityTooLarge", MaxJSONPatchOperations+1, err)
	}
	want := "Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001"
	if s := statusOf(t, err); s.Message != want {
		t.Errorf("message = %q, want %q", s.Message, want)
	}
}

// With fieldValidation Warn (the default), unknown and duplicate fields are dropped and reported as
// warnings, one per field (addStrictDecodingWarnings); with Ignore they are dropped silently.
func TestUnknownFieldWarnings(t *testing.T) {
	cases := []struct {
		name       string
		pt         types.PatchType
		body       string
		validation string
		want       []string
	}{
		{"merge patch: unknown fields, in document order", types.MergePatchType, `{"zeta":1,"data":{"size":"small"},"spec":{"a":1}}`, "",
			[]string{`unknown field "spec"`, `unknown field "zeta"`}},
		{"merge patch: a duplicate field of the patch comes first", types.MergePatchType, `{"data":{"size":"s"},"data":{"size":"m"},"spec":1}`, "",
			[]string{`duplicate field "data"`, `unknown field "spec"`}},
		{"strategic merge patch: unknown fields, sorted", types.StrategicMergePatchType, `{"zeta":1,"alpha":{"b":2}}`, metav1.FieldValidationWarn,
			[]string{`unknown field "alpha"`, `unknown field "zeta"`}},
		{"JSON patch: unknown fields of an operation and of the result", types.JSONPatchType, `[{"op":"add","path":"/spec","value":{"x":1},"valeu":2}]`, "",
			[]string{`json patch unknown field "[0].valeu"`, `unknown field "spec"`}},
		{"Ignore: no warnings", types.MergePatchType, `{"spec":{"a":1}}`, metav1.FieldValidationIgnore, nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			opts := builtin
			opts.PatchOptions.FieldValidation = tc.validation
			got, warnings, err := ApplyWithWarnings(configMap(), tc.pt, []byte(tc.body), opts)
			if err != nil {
				t.Fatal(err)
			}
			if strings.Join(warnings, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("warnings = %q, want %q", warnings, tc.want)
			}
			if got.(*corev1.ConfigMap).Name != "settings" {
				t.Errorf("patched object lost its name: %v", got)
			}
		})
	}
}
