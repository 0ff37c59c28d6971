package rbac

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// sanitizer escapes the message as responsewriters does before it is sent.
var sanitizer = strings.NewReplacer(`&`, "&amp;", `<`, "&lt;", `>`, "&gt;")

// Forbidden is the error kube-apiserver returns when the authorizer denies
// attrs with reason (k8s.io/apiserver pkg/endpoints/handlers/responsewriters/errors.go
// ForbiddenStatusError, and k8s.io/apimachinery pkg/api/errors NewForbidden):
//
//	configmaps "cm" is forbidden: User "u" cannot get resource "configmaps" in API group "" in the namespace "ns"
//	deployments.apps "d" is forbidden: User "u" cannot update resource "deployments/status" in API group "apps" in the namespace "ns"
//	namespaces is forbidden: User "u" cannot list resource "namespaces" in API group "" at the cluster scope
//
// A non-empty reason is appended after ": ". The status details carry the
// group, the resource (in the Kind field, as upstream does) and the name.
func Forbidden(attrs Attributes, reason string) *apierrors.StatusError {
	msg := sanitizer.Replace(forbiddenMessage(attrs))
	var err error
	if reason == "" {
		err = fmt.Errorf("%s", msg)
	} else {
		err = fmt.Errorf("%s: %s", msg, reason)
	}
	gr := schema.GroupResource{Group: attrs.APIGroup, Resource: attrs.Resource}
	return apierrors.NewForbidden(gr, attrs.Name, err)
}

func forbiddenMessage(attrs Attributes) string {
	resource := attrs.Resource
	if attrs.Subresource != "" {
		resource = resource + "/" + attrs.Subresource
	}
	if attrs.Namespace != "" {
		return fmt.Sprintf("User %q cannot %s resource %q in API group %q in the namespace %q",
			attrs.User, attrs.Verb, resource, attrs.APIGroup, attrs.Namespace)
	}
	return fmt.Sprintf("User %q cannot %s resource %q in API group %q at the cluster scope",
		attrs.User, attrs.Verb, resource, attrs.APIGroup)
}
