package apiserver

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Writes whose admission waited.
//
// A webhook call takes time (its handler runs as a task of the serving
// process, package process's webhooks.go), and while the writing task waits
// for it other tasks write too. kube-apiserver runs admission inside the
// storage's GuaranteedUpdate: when the stored object changed meanwhile, etcd's
// compare-and-swap fails and the update runs again on the object as it is now
// (mutating webhooks called again, then the resourceVersion precondition: an
// update that named the old resourceVersion gets the optimistic-lock
// Conflict; a patch is applied again to the new object); a delete's
// validation runs again likewise. The model does the same, so a write that
// waited never overwrites a write made during its wait. Writes that did not
// wait (no webhook, or the kernel's own writes) never see a change and are
// run once.

// errMovedDuringAdmission is update's answer when the stored object changed
// (or went) while its admission waited: the caller runs the write again.
var errMovedDuringAdmission = errors.New("apiserver: the stored object changed while admission waited")

// movedDuringAdmission reports whether the object stored under r's key is no
// longer the one that was read as existing (same uid and resourceVersion).
func (s *Server) movedDuringAdmission(r Request, existing client.Object) bool {
	if s.webhooks == nil {
		return false // nothing waits
	}
	cur, ok := s.store(r.Kind).get(objectKey{r.Namespace, r.Name})
	return !ok || cur.GetUID() != existing.GetUID() || cur.GetResourceVersion() != existing.GetResourceVersion()
}

// updateAdmitted is update, run again on the object stored now for as long as
// its admission's wait saw the stored object change (see above). reapply
// makes the new object from the current one (a patch applied again); nil
// keeps the request's body (an update).
func (s *Server) updateAdmitted(r Request, in, existing client.Object, uidPrecondition bool,
	reapply func(existing client.Object) (client.Object, error)) (client.Object, error) {
	if s.webhooks == nil {
		return s.update(r, in, existing, uidPrecondition)
	}
	for {
		body := in.DeepCopyObject().(client.Object) // update changes its input
		out, err := s.update(r, body, existing, uidPrecondition)
		if !errors.Is(err, errMovedDuringAdmission) {
			return out, err
		}
		cur, ok, err := s.storedIn(r.Kind, objectKey{r.Namespace, r.Name})
		if !ok {
			return nil, apierrors.NewNotFound(r.Kind.GroupResource(), r.Name)
		}
		if err != nil {
			return nil, err
		}
		existing = cur
		if reapply != nil {
			if in, err = reapply(existing); err != nil {
				return nil, err
			}
		}
	}
}
