package apiserver

import (
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Graceful deletion: the kinds whose strategy is a RESTGracefulDeleteStrategy
// (of the kinds served here, Pod) are deleted in two steps, as
// k8s.io/apiserver's rest.BeforeDelete and Store.Delete do: the first delete
// sets deletionTimestamp (now + the grace period) and
// deletionGracePeriodSeconds and keeps the object (Terminating); whoever
// stops it (the kubelet) deletes it again with grace 0, and then it goes
// (once its finalizers are gone).

// gracefulKind reports whether k's strategy deletes gracefully.
func gracefulKind(k *Kind) bool {
	return k.GVK.GroupKind() == schema.GroupKind{Kind: "Pod"}
}

// podGracePeriod is the pod strategy's CheckGracefulDelete
// (pkg/registry/core/pod/strategy.go): the delete option's gracePeriodSeconds,
// else the pod's spec.terminationGracePeriodSeconds (defaulted to 30), else 0;
// 0 for a pod never scheduled (no spec.nodeName) or already terminated
// (Succeeded or Failed); a negative period is 1.
func podGracePeriod(pod *corev1.Pod, opts *client.DeleteOptions) int64 {
	var period int64
	switch {
	case opts.GracePeriodSeconds != nil:
		period = *opts.GracePeriodSeconds
	case pod.Spec.TerminationGracePeriodSeconds != nil:
		period = *pod.Spec.TerminationGracePeriodSeconds
	}
	if pod.Spec.NodeName == "" {
		period = 0
	}
	if pod.Status.Phase == corev1.PodFailed || pod.Status.Phase == corev1.PodSucceeded {
		period = 0
	}
	if period < 0 {
		period = 1
	}
	return period
}

// beforeDelete is rest.BeforeDelete for a graceful kind: it sets obj's
// deletionTimestamp and deletionGracePeriodSeconds for this delete and
// reports whether the delete is graceful (obj is to be written, then removed
// if the period is 0 and no finalizer holds it) or pending (a graceful
// deletion is under way and this one does not shorten it: nothing is
// written). Neither: the object is deleted as a kind without graceful
// deletion is (a deletion already at grace 0).
func (s *Server) beforeDelete(obj client.Object, opts *client.DeleteOptions) (graceful, pending bool, period int64) {
	// Negative values are 1s on the delete path.
	var asked *int64
	if g := opts.GracePeriodSeconds; g != nil {
		v := *g
		if v < 0 {
			v = 1
		}
		asked = &v
	}
	now := s.now()
	if ts := obj.GetDeletionTimestamp(); ts != nil {
		cur := obj.GetDeletionGracePeriodSeconds()
		if cur == nil || *cur == 0 {
			return false, false, 0 // the update was made, the delete was not: delete now
		}
		if asked == nil || *asked >= *cur {
			return false, true, *cur // only a shorter grace period may be given
		}
		// Move the deletionTimestamp back by the old period and forward by the
		// new one, never into the past; a graceful period that has run out
		// already is 1s, so that the one who stops the object still deletes it.
		period := *asked
		at := ts.Add(-time.Duration(*cur) * time.Second).Add(time.Duration(period) * time.Second)
		if at.Before(now.Time) {
			at = now.Time
			if period != 0 {
				period = 1
			}
		}
		moved := now
		moved.Time = at
		obj.SetDeletionTimestamp(&moved)
		obj.SetDeletionGracePeriodSeconds(&period)
		return true, false, period
	}
	pod, ok := obj.(*corev1.Pod)
	if !ok {
		return false, false, 0
	}
	o := *opts
	o.GracePeriodSeconds = asked
	period = podGracePeriod(pod, &o)
	at := now
	at.Time = now.Add(time.Duration(period) * time.Second)
	obj.SetDeletionTimestamp(&at)
	obj.SetDeletionGracePeriodSeconds(&period)
	// The first graceful deletion bumps the generation (where tracked).
	if obj.GetGeneration() > 0 {
		obj.SetGeneration(obj.GetGeneration() + 1)
	}
	return true, false, period
}
