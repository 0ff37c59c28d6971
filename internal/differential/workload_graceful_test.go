package differential

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A pod's graceful deletion under a StatefulSet. The pods are created bound
// (the template names node-1: envtest has no scheduler, and a pod never
// scheduled is deleted at once), and no kubelet stops them (envtest has
// none; the test kubelet only writes a pending pod's status): what is
// compared is kube-apiserver's side (deletionTimestamp, the grace period of
// the options or of the pod, a second delete that cannot lengthen it but
// shortens it, grace 0 removing the pod) and the statefulset controller's
// (a Terminating pod is neither a replica to make again nor ready; the set
// waits for it to be gone). The steps play the kubelet's last act: a delete
// with grace 0 and the pod's uid as precondition.
func init() {
	workloadScripts["statefulset-graceful"] = []WorkloadStep{
		{Name: "create 2 bound replicas of web:1", Do: createStep(func(ns string) client.Object {
			s := WorkloadStatefulSet(ns, "web", 2, "web:1", appsv1.OrderedReadyPodManagement)
			s.Spec.Template.Spec.NodeName = "node-1"
			// Ten minutes: a shortened period must end after the step that
			// shortens it has settled, however slow the side (one run out
			// already becomes 1s).
			s.Spec.Template.Spec.TerminationGracePeriodSeconds = ptr.To[int64](600)
			return s
		}), Settled: statefulSetSettled("web", 2)},
		{Name: "scale down to 1: web-1 Terminating for its 600s", Do: patchStatefulSet("web", func(s *appsv1.StatefulSet) { s.Spec.Replicas = ptr.To[int32](1) }),
			Settled: podTerminating("web-1", 600)},
		{Name: "delete web-1 with grace 900: not lengthened", Do: deletePod("web-1", ptr.To[int64](900), false),
			Settled: podTerminating("web-1", 600)},
		{Name: "delete web-1 with grace 300: shortened", Do: deletePod("web-1", ptr.To[int64](300), false),
			Settled: podTerminating("web-1", 300)},
		{Name: "the kubelet deletes web-1 with grace 0", Do: deletePod("web-1", ptr.To[int64](0), true),
			Settled: statefulSetSettled("web", 1)},
		{Name: "delete web-0: the set waits while it is Terminating", Do: deletePod("web-0", nil, false),
			Settled: podTerminating("web-0", 600)},
		{Name: "force-delete web-0: the set makes it again", Do: deletePod("web-0", ptr.To[int64](0), false),
			Settled: statefulSetSettled("web", 1)},
	}
}

// deletePod deletes pod name of the namespace with the grace period given
// (nil: the pod's own), with its uid as precondition when uid is set (the
// kubelet's delete).
func deletePod(name string, grace *int64, uid bool) func(context.Context, client.Client, string) error {
	return func(ctx context.Context, c client.Client, ns string) error {
		p := &corev1.Pod{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, p); err != nil {
			return err
		}
		o := &client.DeleteOptions{GracePeriodSeconds: grace}
		if uid {
			o.Preconditions = &metav1.Preconditions{UID: &p.UID}
		}
		return c.Delete(ctx, p, o)
	}
}

// podTerminating: pod name is being deleted with grace seconds, and the
// StatefulSets have observed their latest generation.
func podTerminating(name string, grace int64) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		for _, set := range s.StatefulSets {
			if set.Status.ObservedGeneration != set.Generation {
				return false
			}
		}
		for _, p := range s.Pods {
			if p.Name == name {
				return p.DeletionTimestamp != nil && ptr.Deref(p.DeletionGracePeriodSeconds, -1) == grace
			}
		}
		return false
	}
}
