package pipeline

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// GroupVersion of the pipeline API (pipelines.weave.works/v1alpha1).
var GroupVersion = schema.GroupVersion{Group: "pipelines.weave.works", Version: "v1alpha1"}

// HelmGroupVersion is the group of Flux's HelmRelease, the app kind the pipelines
// of the scenarios point at.
var HelmGroupVersion = schema.GroupVersion{Group: "helm.toolkit.fluxcd.io", Version: "v2beta1"}

// Kinds.
var (
	PipelineGVK       = GroupVersion.WithKind("Pipeline")
	PromotionClaimGVK = GroupVersion.WithKind("PromotionClaim")
	HelmReleaseGVK    = HelmGroupVersion.WithKind("HelmRelease")
)

// Condition types and reasons of a Pipeline (upstream pkg/conditions and
// api/v1alpha1/condition_types.go).
const (
	ReadyCondition                = "Ready"
	PromotionPendingCondition     = "PromotionPending"
	TargetNotReadableReason       = "TargetNotReadable"
	ReconciliationSucceededReason = "ReconciliationSucceeded"
	EnvironmentNotReadyReason     = "EnvironmentNotReady"
	MaxConditionMessageLength     = 20000
)

// Pipeline is upstream's Pipeline (api/v1alpha1/pipeline_types.go at PR #214): an
// app promoted through a list of environments.
type Pipeline struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PipelineSpec   `json:"spec,omitempty"`
	Status            PipelineStatus `json:"status,omitempty"`
}

// PipelineList is a list of Pipelines.
type PipelineList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []Pipeline `json:"items"`
}

// PipelineSpec: the app, its environments in promotion order, and how to promote.
type PipelineSpec struct {
	AppRef       LocalAppReference `json:"appRef"`
	Environments []Environment     `json:"environments"`
	Promotion    *Promotion        `json:"promotion,omitempty"`
}

// LocalAppReference names the app object (HelmRelease or Kustomization) in each
// target namespace.
type LocalAppReference struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
}

// Environment is one stage of the pipeline, with its targets.
type Environment struct {
	Name      string     `json:"name"`
	Targets   []Target   `json:"targets"`
	Promotion *Promotion `json:"promotion,omitempty"` // per-environment override
}

// Target is a namespace, in the local cluster or a remote one.
type Target struct {
	Namespace  string                          `json:"namespace"`
	ClusterRef *CrossNamespaceClusterReference `json:"clusterRef,omitempty"`
}

// CrossNamespaceClusterReference names a GitopsCluster.
type CrossNamespaceClusterReference struct {
	APIVersion string `json:"apiVersion,omitempty"`
	Kind       string `json:"kind"`
	Name       string `json:"name"`
	Namespace  string `json:"namespace,omitempty"`
}

// Promotion is the promotion strategy; its fields are mutually exclusive.
type Promotion struct {
	PullRequest  *PullRequestPromotion  `json:"pull-request,omitempty"`
	Notification *NotificationPromotion `json:"notification,omitempty"`
}

// PullRequestPromotion promotes by opening a pull request.
type PullRequestPromotion struct {
	URL    string `json:"url"`
	Branch string `json:"branch,omitempty"`
}

// NotificationPromotion promotes by emitting an event.
type NotificationPromotion struct{}

// GetPromotion is the strategy for env: the environment's override, else the
// pipeline's.
func (s PipelineSpec) GetPromotion(env string) *Promotion {
	for _, e := range s.Environments {
		if e.Name == env && e.Promotion != nil {
			return e.Promotion
		}
	}
	return s.Promotion
}

// PipelineStatus is what the controller observed and did.
type PipelineStatus struct {
	ObservedGeneration int64                         `json:"observedGeneration,omitempty"`
	Conditions         []metav1.Condition            `json:"conditions,omitempty"`
	Environments       map[string]*EnvironmentStatus `json:"environments,omitempty"`
}

// EnvironmentStatus is the observed state of one environment. Promotion is new in
// PR #214 (d2c3c038).
type EnvironmentStatus struct {
	Targets   []TargetStatus   `json:"targets,omitempty"`
	Promotion *PromotionStatus `json:"promotion,omitempty"`
}

// TargetStatus is the observed state of one target's app.
type TargetStatus struct {
	ClusterAppRef ClusterAppReference `json:"clusterAppRef"`
	Revision      string              `json:"revision,omitempty"`
	Ready         bool                `json:"ready,omitempty"`
	Error         string              `json:"error,omitempty"`
}

// ClusterAppReference is an app reference with its cluster.
type ClusterAppReference struct {
	ClusterRef        *CrossNamespaceClusterReference `json:"clusterRef,omitempty"`
	LocalAppReference `json:",inline"`
}

// PromotionStatus records a promotion attempt (PR #214): "revision gives the
// logical point in time that the record applies to ... succeeded is true if it's
// done, false if it needs to be retried".
type PromotionStatus struct {
	Revision          string      `json:"revision"`
	LastAttemptedTime metav1.Time `json:"lastAttemptedTime"`
	Succeeded         bool        `json:"succeeded"`
}

// PromotionClaim is the robust variant's guard: created (with a name derived from
// pipeline, environment and revision) before a promotion is triggered, so that
// AlreadyExists, not a possibly stale cache, decides who promotes; its status
// records the outcome of each attempt. PR #214 names this design ("create
// Promotion objects and guard promotions by trying to create") without
// implementing it.
type PromotionClaim struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              PromotionClaimSpec   `json:"spec,omitempty"`
	Status            PromotionClaimStatus `json:"status,omitempty"`
}

// PromotionClaimList is a list of PromotionClaims.
type PromotionClaimList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []PromotionClaim `json:"items"`
}

// PromotionClaimSpec is what is claimed.
type PromotionClaimSpec struct {
	Pipeline    string `json:"pipeline"`
	Environment string `json:"environment"`
	Revision    string `json:"revision"`
}

// Claim phases. An empty phase is the first attempt, claimed by the creation.
const (
	ClaimAttempting = "Attempting"
	ClaimSucceeded  = "Succeeded"
	ClaimFailed     = "Failed"
)

// PromotionClaimStatus is the outcome so far.
type PromotionClaimStatus struct {
	Phase             string      `json:"phase,omitempty"`
	Attempts          int         `json:"attempts,omitempty"`
	LastAttemptedTime metav1.Time `json:"lastAttemptedTime,omitempty"`
	Message           string      `json:"message,omitempty"`
}

// HelmRelease is the part of Flux's HelmRelease the pipeline reads (a Ready
// condition and status.lastAppliedRevision) and a promotion changes (the chart
// version).
type HelmRelease struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`
	Spec              HelmReleaseSpec   `json:"spec,omitempty"`
	Status            HelmReleaseStatus `json:"status,omitempty"`
}

// HelmReleaseList is a list of HelmReleases.
type HelmReleaseList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	Items           []HelmRelease `json:"items"`
}

// HelmReleaseSpec holds the chart template.
type HelmReleaseSpec struct {
	Chart HelmChartTemplate `json:"chart"`
}

// HelmChartTemplate wraps the chart spec.
type HelmChartTemplate struct {
	Spec HelmChartTemplateSpec `json:"spec"`
}

// HelmChartTemplateSpec names the chart and its version.
type HelmChartTemplateSpec struct {
	Chart   string `json:"chart"`
	Version string `json:"version,omitempty"`
}

// HelmReleaseStatus is what helm-controller reports.
type HelmReleaseStatus struct {
	ObservedGeneration  int64              `json:"observedGeneration,omitempty"`
	Conditions          []metav1.Condition `json:"conditions,omitempty"`
	LastAppliedRevision string             `json:"lastAppliedRevision,omitempty"`
}

// AddToScheme registers Pipeline, PromotionClaim and HelmRelease.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &Pipeline{}, &PipelineList{}, &PromotionClaim{}, &PromotionClaimList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	s.AddKnownTypes(HelmGroupVersion, &HelmRelease{}, &HelmReleaseList{})
	metav1.AddToGroupVersion(s, HelmGroupVersion)
	return nil
}

// ---- deep copies (hand-written, as controller-gen would generate them) ----

// DeepCopyInto copies p into out.
func (p *Pipeline) DeepCopyInto(out *Pipeline) {
	*out = *p
	p.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	p.Spec.DeepCopyInto(&out.Spec)
	p.Status.DeepCopyInto(&out.Status)
}

// DeepCopy returns a deep copy of p.
func (p *Pipeline) DeepCopy() *Pipeline {
	if p == nil {
		return nil
	}
	out := new(Pipeline)
	p.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (p *Pipeline) DeepCopyObject() runtime.Object { return p.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *PipelineList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(PipelineList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]Pipeline, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

func (p *Promotion) deepCopy() *Promotion {
	if p == nil {
		return nil
	}
	out := *p
	if p.PullRequest != nil {
		pr := *p.PullRequest
		out.PullRequest = &pr
	}
	if p.Notification != nil {
		out.Notification = &NotificationPromotion{}
	}
	return &out
}

func (r *CrossNamespaceClusterReference) deepCopy() *CrossNamespaceClusterReference {
	if r == nil {
		return nil
	}
	out := *r
	return &out
}

// DeepCopyInto copies s into out.
func (s *PipelineSpec) DeepCopyInto(out *PipelineSpec) {
	*out = *s
	out.Promotion = s.Promotion.deepCopy()
	if s.Environments != nil {
		out.Environments = make([]Environment, len(s.Environments))
		for i, e := range s.Environments {
			out.Environments[i] = e
			out.Environments[i].Promotion = e.Promotion.deepCopy()
			if e.Targets != nil {
				ts := make([]Target, len(e.Targets))
				for j, t := range e.Targets {
					ts[j] = Target{Namespace: t.Namespace, ClusterRef: t.ClusterRef.deepCopy()}
				}
				out.Environments[i].Targets = ts
			}
		}
	}
}

// DeepCopyInto copies s into out.
func (s *PipelineStatus) DeepCopyInto(out *PipelineStatus) {
	*out = *s
	out.Conditions = copyConditions(s.Conditions)
	if s.Environments != nil {
		out.Environments = make(map[string]*EnvironmentStatus, len(s.Environments))
		for k, v := range s.Environments { // lint:order-independent copy
			out.Environments[k] = v.DeepCopy()
		}
	}
}

// DeepCopy returns a deep copy of s.
func (s *EnvironmentStatus) DeepCopy() *EnvironmentStatus {
	if s == nil {
		return nil
	}
	out := &EnvironmentStatus{}
	if s.Targets != nil {
		out.Targets = make([]TargetStatus, len(s.Targets))
		for i, t := range s.Targets {
			out.Targets[i] = t
			out.Targets[i].ClusterAppRef.ClusterRef = t.ClusterAppRef.ClusterRef.deepCopy()
		}
	}
	if s.Promotion != nil {
		p := *s.Promotion
		p.LastAttemptedTime = *s.Promotion.LastAttemptedTime.DeepCopy()
		out.Promotion = &p
	}
	return out
}

func copyConditions(in []metav1.Condition) []metav1.Condition {
	if in == nil {
		return nil
	}
	out := make([]metav1.Condition, len(in))
	for i := range in {
		in[i].DeepCopyInto(&out[i])
	}
	return out
}

// DeepCopyInto copies c into out.
func (c *PromotionClaim) DeepCopyInto(out *PromotionClaim) {
	*out = *c
	c.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	c.Status.LastAttemptedTime.DeepCopyInto(&out.Status.LastAttemptedTime)
}

// DeepCopy returns a deep copy of c.
func (c *PromotionClaim) DeepCopy() *PromotionClaim {
	if c == nil {
		return nil
	}
	out := new(PromotionClaim)
	c.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (c *PromotionClaim) DeepCopyObject() runtime.Object { return c.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *PromotionClaimList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(PromotionClaimList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]PromotionClaim, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// DeepCopyInto copies h into out.
func (h *HelmRelease) DeepCopyInto(out *HelmRelease) {
	*out = *h
	h.ObjectMeta.DeepCopyInto(&out.ObjectMeta)
	out.Status.Conditions = copyConditions(h.Status.Conditions)
}

// DeepCopy returns a deep copy of h.
func (h *HelmRelease) DeepCopy() *HelmRelease {
	if h == nil {
		return nil
	}
	out := new(HelmRelease)
	h.DeepCopyInto(out)
	return out
}

// DeepCopyObject implements runtime.Object.
func (h *HelmRelease) DeepCopyObject() runtime.Object { return h.DeepCopy() }

// DeepCopyObject implements runtime.Object.
func (l *HelmReleaseList) DeepCopyObject() runtime.Object {
	if l == nil {
		return nil
	}
	out := new(HelmReleaseList)
	*out = *l
	l.ListMeta.DeepCopyInto(&out.ListMeta)
	if l.Items != nil {
		out.Items = make([]HelmRelease, len(l.Items))
		for i := range l.Items {
			l.Items[i].DeepCopyInto(&out.Items[i])
		}
	}
	return out
}

// String names a target for messages.
func (t Target) String() string {
	if t.ClusterRef == nil {
		return t.Namespace
	}
	return fmt.Sprintf("%s/%s:%s", t.ClusterRef.Namespace, t.ClusterRef.Name, t.Namespace)
}
