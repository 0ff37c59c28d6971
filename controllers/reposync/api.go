package reposync

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion is config-sync's API group version.
var GroupVersion = schema.GroupVersion{Group: "configsync.gke.io", Version: "v1beta1"}

// RepoSyncGVK is the kind of RepoSync.
var RepoSyncGVK = GroupVersion.WithKind("RepoSync")

// RepoSyncPlural is the resource name of RepoSync.
const RepoSyncPlural = "reposyncs"

// AddToScheme registers RepoSync and RepoSyncList.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &RepoSync{}, &RepoSyncList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}

// RepoSync is a namespaced config-sync RepoSync (configsync.gke.io/v1beta1),
// reduced to the fields the reconciler-manager and the ns-reconciler read and
// write here.
type RepoSync struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              RepoSyncSpec   `json:"spec,omitempty"`
	Status            RepoSyncStatus `json:"status,omitempty"`
}

// RepoSyncSpec is where the reconciler syncs from.
type RepoSyncSpec struct {
	SourceType string `json:"sourceType,omitempty"`
	Git        *Git   `json:"git,omitempty"`
}

// Git is a Git source.
type Git struct {
	Repo     string `json:"repo,omitempty"`
	Revision string `json:"revision,omitempty"`
	Dir      string `json:"dir,omitempty"`
	Auth     string `json:"auth,omitempty"`
}

// RepoSyncStatus is what the reconciler-manager and the ns-reconciler report.
type RepoSyncStatus struct {
	ObservedGeneration int64               `json:"observedGeneration,omitempty"`
	Reconciler         string              `json:"reconciler,omitempty"`
	Conditions         []RepoSyncCondition `json:"conditions,omitempty"`
	// LastSyncedCommit is the commit the reconciler last applied (upstream's
	// status.sync.commit).
	LastSyncedCommit string `json:"lastSyncedCommit,omitempty"`
}

// RepoSyncConditionType names a condition.
type RepoSyncConditionType string

// The conditions of a RepoSync.
const (
	RepoSyncReconciling                RepoSyncConditionType = "Reconciling"
	RepoSyncStalled                    RepoSyncConditionType = "Stalled"
	RepoSyncReconcilerFinalizing       RepoSyncConditionType = "ReconcilerFinalizing"
	RepoSyncReconcilerFinalizerFailure RepoSyncConditionType = "ReconcilerFinalizerFailure"
)

// RepoSyncCondition is one condition.
type RepoSyncCondition struct {
	Type               RepoSyncConditionType  `json:"type"`
	Status             metav1.ConditionStatus `json:"status"`
	Reason             string                 `json:"reason,omitempty"`
	Message            string                 `json:"message,omitempty"`
	LastUpdateTime     metav1.Time            `json:"lastUpdateTime,omitempty"`
	LastTransitionTime metav1.Time            `json:"lastTransitionTime,omitempty"`
}

// RepoSyncList is a list of RepoSyncs.
type RepoSyncList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []RepoSync `json:"items"`
}

// DeepCopyInto copies r into out.
func (r *RepoSync) DeepCopyInto(out *RepoSync) {
	*out = *r
	r.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	if r.Spec.Git != nil {
		g := *r.Spec.Git
		out.Spec.Git = &g
	}
	if r.Status.Conditions != nil {
		out.Status.Conditions = make([]RepoSyncCondition, len(r.Status.Conditions))
		for i := range r.Status.Conditions {
			c := r.Status.Conditions[i]
			c.LastUpdateTime = *c.LastUpdateTime.DeepCopy()
			c.LastTransitionTime = *c.LastTransitionTime.DeepCopy()
			out.Status.Conditions[i] = c
		}
	}
}

// DeepCopy returns a deep copy of r.
func (r *RepoSync) DeepCopy() *RepoSync {
	if r == nil {
		return nil
	}
	out := new(RepoSync)
	r.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (r *RepoSync) DeepCopyObject() runtime.Object { return r.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *RepoSyncList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(RepoSyncList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]RepoSync, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// condition returns the condition of type t, or nil.
func (r *RepoSync) condition(t RepoSyncConditionType) *RepoSyncCondition {
	for i := range r.Status.Conditions {
		if r.Status.Conditions[i].Type == t {
			return &r.Status.Conditions[i]
		}
	}
	return nil
}

// setCondition sets condition t and reports a change (reposync.SetReconcilerFinalizing
// and friends: the timestamps move only when something else changes).
func (r *RepoSync) setCondition(t RepoSyncConditionType, status metav1.ConditionStatus, reason, message string, now metav1.Time) bool {
	c := r.condition(t)
	if c == nil {
		r.Status.Conditions = append(r.Status.Conditions, RepoSyncCondition{
			Type: t, Status: status, Reason: reason, Message: message, LastUpdateTime: now, LastTransitionTime: now,
		})
		return true
	}
	if c.Status == status && c.Reason == reason && c.Message == message {
		return false
	}
	if c.Status != status {
		c.LastTransitionTime = now
	}
	c.Status, c.Reason, c.Message, c.LastUpdateTime = status, reason, message, now
	return true
}

// removeCondition removes condition t and reports a change.
func (r *RepoSync) removeCondition(t RepoSyncConditionType) bool {
	for i := range r.Status.Conditions {
		if r.Status.Conditions[i].Type == t {
			r.Status.Conditions = append(r.Status.Conditions[:i], r.Status.Conditions[i+1:]...)
			return true
		}
	}
	return false
}
