package patch

import (
	"fmt"
	"net/http"
	"slices"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/mergepatch"
)

// supportedPatchTypes are the patch media types the real apiserver accepts, in the order its 415 message
// lists them. Built-in resources: k8s.io/apiserver@v0.37.2/pkg/endpoints/installer.go; custom resources:
// k8s.io/apiextensions-apiserver@v0.37.0/pkg/apiserver/customresource_handler.go, which leaves out strategic
// merge patch. application/apply-patch+cbor is added to both only with the CBORServingAndStorage feature
// gate, which is alpha and off by default in v1.37, so it is not accepted here.
func supportedPatchTypes(strategic bool) []string {
	if strategic {
		return []string{
			string(types.JSONPatchType),
			string(types.MergePatchType),
			string(types.StrategicMergePatchType),
			string(types.ApplyYAMLPatchType),
		}
	}
	return []string{
		string(types.JSONPatchType),
		string(types.MergePatchType),
		string(types.ApplyYAMLPatchType),
	}
}

// checkMediaType rejects a patch type the resource does not accept, with the error the real apiserver gives.
func checkMediaType(pt types.PatchType, strategic bool) error {
	supported := supportedPatchTypes(strategic)
	if slices.Contains(supported, string(pt)) {
		return nil
	}
	if strategic {
		// Built-in resources are routed by go-restful, whose route declares Consumes(supportedTypes...):
		// a PATCH with another Content-Type finds no route (go-restful v3 jsr311.go: "415: Unsupported
		// Media Type"), and serviceErrorHandler (k8s.io/apiserver@v0.37.2/pkg/server/handler.go) turns
		// it into NewGenericServerResponse(415, ...).
		return apierrors.NewGenericServerResponse(http.StatusUnsupportedMediaType, "", schema.GroupResource{}, "",
			"415: Unsupported Media Type", 0, false)
	}
	// Custom resources reach PatchResource directly, which checks the Content-Type itself
	// (negotiation.NewUnsupportedMediaTypeError in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/negotiation).
	return unsupportedMediaType(unknownFormatMessage(supported))
}

func unknownFormatMessage(accepted []string) string {
	return fmt.Sprintf("the body of the request was in an unknown format - accepted media types include: %v",
		strings.Join(accepted, ", "))
}

func unsupportedMediaType(message string) *apierrors.StatusError {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: message,
	}}
}

// errServerSideApply is the answer to an apply patch. Server-side apply (field ownership, managedFields,
// conflicts, force) is not modelled. The status is 415 UnsupportedMediaType because that is how a real
// apiserver that does not serve apply answered (before v1.16, or with the ServerSideApply feature gate
// off): application/apply-patch+yaml was not among its accepted patch types, so the request failed the
// media type check of PatchResource. Client code that copes with a server without apply copes with this.
// The message starts by naming the model, so nobody mistakes it for a real apiserver's answer.
func errServerSideApply(strategic bool) *apierrors.StatusError {
	var accepted []string
	for _, t := range supportedPatchTypes(strategic) {
		if t != string(types.ApplyYAMLPatchType) {
			accepted = append(accepted, t)
		}
	}
	return unsupportedMediaType("server-side apply is not supported by the ctrlsim apiserver model: " +
		unknownFormatMessage(accepted))
}

// interpretStrategicMergePatchError is the function of the same name in
// k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/patch.go. It compares errors by identity, as the real
// one does: a wrapped error (e.g. mergepatch.ErrBadArgType's "expected a map, but received a string")
// is returned as it is and becomes a 500 (see serverError).
func interpretStrategicMergePatchError(err error) error {
	switch err {
	case mergepatch.ErrBadJSONDoc, mergepatch.ErrBadPatchFormatForPrimitiveList, mergepatch.ErrBadPatchFormatForRetainKeys,
		mergepatch.ErrBadPatchFormatForSetElementOrderList, mergepatch.ErrUnsupportedStrategicMergePatchFormat:
		return apierrors.NewBadRequest(err.Error())
	case mergepatch.ErrNoListOfLists, mergepatch.ErrPatchContentNotMatchRetainKeys:
		return apierrors.NewGenericServerResponse(http.StatusUnprocessableEntity, "", schema.GroupResource{}, "", err.Error(), 0, false)
	default:
		return err
	}
}

// serverError is what the real apiserver answers for err: an error that carries a status is sent as it is;
// any other error becomes 500 with reason Unknown and the error's text (responsewriters.ErrorToAPIStatus
// in k8s.io/apiserver@v0.37.2/pkg/endpoints/handlers/responsewriters/status.go). Note that reason Unknown
// is not InternalError: apierrors.IsInternalError is false for it.
func serverError(err error) error {
	switch t := err.(type) {
	case *apierrors.StatusError:
		return t
	case apierrors.APIStatus:
		return &apierrors.StatusError{ErrStatus: t.Status()}
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonUnknown,
		Message: err.Error(),
	}}
}

// CheckType is the patch handler's first check, made before the object is read: a
// patch type the resource does not accept is a 415 whether or not the object
// exists (PatchResource checks the content type against the accepted ones).
func CheckType(pt types.PatchType, strategic bool) error {
	if err := checkMediaType(pt, strategic); err != nil {
		return err
	}
	return nil
}

// ServerError is what the real apiserver answers for err (a status error as
// it is; any other a 500 with reason Unknown and the error's text). The
// apiserver model's server-side apply sends the field manager's errors so.
func ServerError(err error) error { return serverError(err) }
