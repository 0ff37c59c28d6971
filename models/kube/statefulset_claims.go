package kube

import (
	"fmt"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The PersistentVolumeClaims of a StatefulSet's volumeClaimTemplates and their
// retention policy (k8s.io/kubernetes@v1.37.1 pkg/controller/statefulset:
// stateful_pod_control.go createPersistentVolumeClaims,
// ClaimsMatchRetentionPolicy, UpdatePodClaimForRetentionPolicy, PodClaimIsStale;
// stateful_set_utils.go getPersistentVolumeClaims, isClaimOwnerUpToDate,
// updateClaimOwnerRefForSetAndPod).

var podKind = corev1.SchemeGroupVersion.WithKind("Pod")

// statefulSetClaims is getPersistentVolumeClaims: pod's claims, one per template
// (in the templates' order; upstream returns a map), labelled with the set's
// selector.
func statefulSetClaims(set *appsv1.StatefulSet, pod *corev1.Pod) []corev1.PersistentVolumeClaim {
	ordinal := podOrdinal(pod)
	var out []corev1.PersistentVolumeClaim
	for i := range set.Spec.VolumeClaimTemplates {
		claim := set.Spec.VolumeClaimTemplates[i].DeepCopy()
		claim.Name = claimName(set, claim, ordinal)
		claim.Namespace = set.Namespace
		if claim.Labels != nil {
			for k, v := range set.Spec.Selector.MatchLabels { // lint:order-independent copied into a map
				claim.Labels[k] = v
			}
		} else {
			claim.Labels = map[string]string{}
			for k, v := range set.Spec.Selector.MatchLabels { // lint:order-independent copied into a map
				claim.Labels[k] = v
			}
		}
		out = append(out, *claim)
	}
	return out
}

// retentionPolicy is getPersistentVolumeClaimRetentionPolicy.
func retentionPolicy(set *appsv1.StatefulSet) appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy {
	if p := set.Spec.PersistentVolumeClaimRetentionPolicy; p != nil {
		return *p
	}
	return appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{
		WhenDeleted: appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
		WhenScaled:  appsv1.RetainPersistentVolumeClaimRetentionPolicyType,
	}
}

// getClaim is the claim lister's Get.
func (s *statefulSetSync) getClaim(namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	pvc := &corev1.PersistentVolumeClaim{}
	if err := s.sc.Client.Get(s.ctx, client.ObjectKey{Namespace: namespace, Name: name}, pvc); err != nil {
		return nil, err
	}
	return pvc, nil
}

// recordClaimEvent is StatefulPodControl.recordClaimEvent.
func (s *statefulSetSync) recordClaimEvent(verb string, set *appsv1.StatefulSet, pod *corev1.Pod, claim *corev1.PersistentVolumeClaim, err error) {
	title := titleVerb(verb)
	if err == nil {
		s.event(set, corev1.EventTypeNormal, "Successful"+title, fmt.Sprintf("%s Claim %s Pod %s in StatefulSet %s success", title, claim.Name, pod.Name, set.Name))
		return
	}
	s.event(set, corev1.EventTypeWarning, "Failed"+title, fmt.Sprintf("%s Claim %s for Pod %s in StatefulSet %s failed error: %s", title, claim.Name, pod.Name, set.Name, err))
}

// createPersistentVolumeClaims creates pod's missing claims.
func (s *statefulSetSync) createPersistentVolumeClaims(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	var errs []error
	for _, claim := range statefulSetClaims(set, pod) {
		pvc, err := s.getClaim(claim.Namespace, claim.Name)
		switch {
		case apierrors.IsNotFound(err):
			err := s.sc.Client.Create(s.ctx, &claim)
			if err != nil {
				errs = append(errs, fmt.Errorf("failed to create PVC %s: %w", claim.Name, err))
			}
			if err == nil || !apierrors.IsAlreadyExists(err) {
				s.recordClaimEvent("create", set, pod, &claim, err)
			}
		case err != nil:
			errs = append(errs, fmt.Errorf("failed to retrieve PVC %s: %w", claim.Name, err))
			s.recordClaimEvent("create", set, pod, &claim, err)
		default:
			if pvc.DeletionTimestamp != nil {
				errs = append(errs, fmt.Errorf("pvc %s is being deleted", claim.Name))
			}
		}
	}
	return utilerrors.NewAggregate(errs)
}

// createMissingPersistentVolumeClaims is createMissingPersistentVolumeClaims.
func (s *statefulSetSync) createMissingPersistentVolumeClaims(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	if err := s.createPersistentVolumeClaims(set, pod); err != nil {
		return err
	}
	if err := s.updatePodClaimForRetentionPolicy(set, pod); err != nil {
		s.recordPodEvent("update", set, pod, err)
		return err
	}
	return nil
}

// claimsMatchRetentionPolicy is ClaimsMatchRetentionPolicy.
func (s *statefulSetSync) claimsMatchRetentionPolicy(set *appsv1.StatefulSet, pod *corev1.Pod) (bool, error) {
	ordinal := podOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := claimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := s.getClaim(set.Namespace, name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return false, fmt.Errorf("Could not retrieve claim %s for %s when checking PVC deletion policy: %w", name, pod.Name, err)
		default:
			if !isClaimOwnerUpToDate(claim, set, pod) {
				return false, nil
			}
		}
	}
	return true, nil
}

// updatePodClaimForRetentionPolicy is UpdatePodClaimForRetentionPolicy.
func (s *statefulSetSync) updatePodClaimForRetentionPolicy(set *appsv1.StatefulSet, pod *corev1.Pod) error {
	ordinal := podOrdinal(pod)
	for i := range set.Spec.VolumeClaimTemplates {
		name := claimName(set, &set.Spec.VolumeClaimTemplates[i], ordinal)
		claim, err := s.getClaim(set.Namespace, name)
		switch {
		case apierrors.IsNotFound(err):
		case err != nil:
			return fmt.Errorf("Could not retrieve claim %s not found for %s when checking PVC deletion policy: %w", name, pod.Name, err)
		default:
			if hasUnexpectedController(claim, set, pod) {
				s.event(set, corev1.EventTypeWarning, "ConflictingController",
					fmt.Sprintf("PersistentVolumeClaim %s has a conflicting OwnerReference that acts as a manging controller, the retention policy is ignored for this claim", name))
			}
			if !isClaimOwnerUpToDate(claim, set, pod) {
				claim = claim.DeepCopy()
				updateClaimOwnerRefForSetAndPod(claim, set, pod)
				if err := s.sc.Client.Update(s.ctx, claim); err != nil {
					return fmt.Errorf("could not update claim %s for delete policy ownerRefs: %w", name, err)
				}
			}
		}
	}
	return nil
}

// podClaimIsStale is PodClaimIsStale: with whenScaled Delete, a claim still owned
// by an earlier pod of the same name must go before the pod is made again.
func (s *statefulSetSync) podClaimIsStale(set *appsv1.StatefulSet, pod *corev1.Pod) (bool, error) {
	if retentionPolicy(set).WhenScaled == appsv1.RetainPersistentVolumeClaimRetentionPolicyType {
		return false, nil
	}
	for _, claim := range statefulSetClaims(set, pod) {
		pvc, err := s.getClaim(claim.Namespace, claim.Name)
		switch {
		case apierrors.IsNotFound(err):
			continue
		case err != nil:
			return false, err
		default:
			if hasStaleOwnerRef(pvc, pod, podKind) {
				return true, nil
			}
		}
	}
	return false, nil
}

func matchesRef(ref *metav1.OwnerReference, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	return gvk.GroupVersion().String() == ref.APIVersion && gvk.Kind == ref.Kind && ref.Name == obj.GetName()
}

// hasUnexpectedController: under a policy other than Retain/Retain, the claim has
// a controller that is neither the set nor the pod, or a stale reference to them.
func hasUnexpectedController(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	p := retentionPolicy(set)
	const retain = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	if p.WhenScaled == retain && p.WhenDeleted == retain {
		return false
	}
	for _, ref := range claim.OwnerReferences {
		if matchesRef(&ref, set, statefulSetKind) {
			if ref.UID != set.UID {
				return true
			}
			continue
		}
		if matchesRef(&ref, pod, podKind) {
			if ref.UID != pod.UID {
				return true
			}
			continue
		}
		if ref.Controller != nil && *ref.Controller {
			return true
		}
	}
	return false
}

func hasNonControllerOwner(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	for _, ref := range claim.OwnerReferences {
		if ref.UID == set.UID || ref.UID == pod.UID {
			if ref.Controller == nil || !*ref.Controller {
				return true
			}
		}
	}
	return false
}

func hasOwnerRef(target, owner metav1.Object) bool {
	for _, ref := range target.GetOwnerReferences() {
		if ref.UID == owner.GetUID() {
			return true
		}
	}
	return false
}

func hasStaleOwnerRef(target *corev1.PersistentVolumeClaim, obj metav1.Object, gvk schema.GroupVersionKind) bool {
	for _, ref := range target.OwnerReferences {
		if matchesRef(&ref, obj, gvk) {
			return ref.UID != obj.GetUID()
		}
	}
	return false
}

// isClaimOwnerUpToDate: Retain/Retain wants no reference to set or pod;
// Retain/Delete (whenScaled/whenDeleted) the set's; Delete/Retain the pod's once
// it is scaled down; Delete/Delete the set's, or the pod's once scaled down.
func isClaimOwnerUpToDate(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) bool {
	if hasStaleOwnerRef(claim, set, statefulSetKind) || hasStaleOwnerRef(claim, pod, podKind) {
		return true
	}
	if hasUnexpectedController(claim, set, pod) {
		return !hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod)
	}
	if hasNonControllerOwner(claim, set, pod) {
		return false
	}
	p := retentionPolicy(set)
	const retain, del = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	scaledDown := !podInOrdinalRange(pod, set)
	switch {
	case p.WhenScaled == retain && p.WhenDeleted == del:
		return hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod)
	case p.WhenScaled == del && p.WhenDeleted == retain:
		return !hasOwnerRef(claim, set) && scaledDown == hasOwnerRef(claim, pod)
	case p.WhenScaled == del && p.WhenDeleted == del:
		return scaledDown != hasOwnerRef(claim, set) && scaledDown == hasOwnerRef(claim, pod)
	default: // Retain/Retain, and unknown policies as Retain
		return !hasOwnerRef(claim, set) && !hasOwnerRef(claim, pod)
	}
}

// updateClaimOwnerRefForSetAndPod rewrites the claim's references to set and pod
// as the policy wants them.
func updateClaimOwnerRefForSetAndPod(claim *corev1.PersistentVolumeClaim, set *appsv1.StatefulSet, pod *corev1.Pod) {
	unexpected := hasUnexpectedController(claim, set, pod)
	refs := []metav1.OwnerReference{}
	for _, ref := range claim.OwnerReferences {
		if !matchesRef(&ref, set, statefulSetKind) && !matchesRef(&ref, pod, podKind) {
			refs = append(refs, ref)
		}
	}
	if unexpected {
		claim.OwnerReferences = refs
		return
	}
	p := retentionPolicy(set)
	const retain, del = appsv1.RetainPersistentVolumeClaimRetentionPolicyType, appsv1.DeletePersistentVolumeClaimRetentionPolicyType
	scaledDown := !podInOrdinalRange(pod, set)
	switch {
	case p.WhenScaled == retain && p.WhenDeleted == del:
		refs = addControllerRef(refs, set, statefulSetKind)
	case p.WhenScaled == del && p.WhenDeleted == retain:
		if scaledDown {
			refs = addControllerRef(refs, pod, podKind)
		}
	case p.WhenScaled == del && p.WhenDeleted == del:
		if scaledDown {
			refs = addControllerRef(refs, pod, podKind)
		} else {
			refs = addControllerRef(refs, set, statefulSetKind)
		}
	}
	claim.OwnerReferences = refs
}

func addControllerRef(refs []metav1.OwnerReference, owner metav1.Object, gvk schema.GroupVersionKind) []metav1.OwnerReference {
	for _, ref := range refs {
		if ref.UID == owner.GetUID() {
			return refs
		}
	}
	return append(refs, *metav1.NewControllerRef(owner, gvk))
}
