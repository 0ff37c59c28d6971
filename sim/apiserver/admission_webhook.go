package apiserver

import (
	"slices"

	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Admission operations, as admissionregistration rules and AdmissionRequests
// name them.
const (
	OpCreate = "CREATE"
	OpUpdate = "UPDATE"
	OpDelete = "DELETE"
)

// AdmissionAttributes describe a write to webhook admission: what
// k8s.io/apiserver's admission.Attributes carry for a webhook.
type AdmissionAttributes struct {
	Operation   string // OpCreate, OpUpdate or OpDelete
	Kind        *Kind
	Subresource string
	Namespace   string
	Name        string // the object's name ("" for a create by generateName)
	// OldObject is the stored object (UPDATE, DELETE); shared: do not change it.
	OldObject client.Object
	User      User
	// DryRun is a dry-run request's (dryRun=All): a webhook whose
	// sideEffects are not None or NoneOnDryRun is not called, and the
	// request fails.
	DryRun bool
}

// WebhookAdmission is the MutatingAdmissionWebhook and
// ValidatingAdmissionWebhook plugins of the server (SetWebhookAdmission).
// kube-apiserver calls them, as the model does, for creates (create and
// create-on-update), updates and patches of a resource or subresource, and
// deletes:
//
//   - Mutate after authorization and NamespaceLifecycle admission, before the
//     registry strategy prepares and validates the object (for a create,
//     before generateName and before .status is dropped; for an update, on
//     the new object before the resourceVersion precondition is checked);
//   - Validate after the strategy's validation and the schema's, before the
//     object is stored (and before AlreadyExists, and before a no-op update
//     is found to change nothing); for a delete, once the stored object is
//     found, with the object nil.
//
// Mutate returns the object to go on with (obj, or a patched copy) or the
// error the client gets; obj is owned by the server.
type WebhookAdmission interface {
	Mutate(a AdmissionAttributes, obj client.Object) (client.Object, error)
	Validate(a AdmissionAttributes, obj client.Object) error
}

// SetWebhookAdmission installs webhook admission (nil: none, as a cluster
// without webhook configurations).
func (s *Server) SetWebhookAdmission(w WebhookAdmission) { s.webhooks = w }

func (s *Server) admissionAttributes(r Request, op string, name string, old client.Object) AdmissionAttributes {
	return AdmissionAttributes{Operation: op, Kind: r.Kind, Subresource: r.Subresource, Namespace: r.Namespace,
		Name: name, OldObject: old, User: r.User, DryRun: r.dryRun}
}

// mutate runs the mutating webhooks for a write of obj.
func (s *Server) mutate(r Request, op string, obj, old client.Object) (client.Object, error) {
	if s.webhooks == nil {
		return obj, nil
	}
	obj.SetNamespace(r.Namespace)
	return s.webhooks.Mutate(s.admissionAttributes(r, op, obj.GetName(), old), obj)
}

// validate runs the validating webhooks for a write of obj (nil for a delete).
func (s *Server) validate(r Request, op string, name string, obj, old client.Object) error {
	if s.webhooks == nil {
		return nil
	}
	return s.webhooks.Validate(s.admissionAttributes(r, op, name, old), obj)
}

// Warn adds a warning to the request being served (an admission webhook's
// AdmissionResponse.warnings: kube-apiserver sends each as a Warning header
// of the response, with code 299).
// An empty or repeated text is dropped, as the warning recorder of
// k8s.io/apiserver's endpoints/filters drops them (its truncation past 4 KiB
// is not modelled).
func (s *Server) Warn(text string) {
	if text == "" || slices.Contains(s.warnings, text) {
		return
	}
	s.warnings = append(s.warnings, text)
}

// TakeWarnings returns the warnings added since the last call and forgets
// them: a client takes them before and after each request (kubeclient), so
// a request's are its own.
func (s *Server) TakeWarnings() []string {
	w := s.warnings
	s.warnings = nil
	return w
}
