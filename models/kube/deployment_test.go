package kube

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

// The cases of upstream's util/deployment_util_test.go (v1.37.1)
// TestResolveFenceposts, TestNewRSNewReplicas and TestGetReplicaSetFraction,
// with their expected values.

func rolling(replicas int32, surge, unavailable *intstr.IntOrString) *appsv1.Deployment {
	return &appsv1.Deployment{Spec: appsv1.DeploymentSpec{Replicas: ptr.To(replicas), Strategy: appsv1.DeploymentStrategy{
		Type: appsv1.RollingUpdateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: surge, MaxUnavailable: unavailable}}}}
}

func TestResolveFencepostsAsUpstream(t *testing.T) {
	pct := func(s string) *intstr.IntOrString { v := intstr.FromString(s); return &v }
	for _, tc := range []struct {
		surge, unavailable *intstr.IntOrString
		desired            int32
		wantS, wantU       int32
	}{
		{pct("0%"), pct("0%"), 0, 0, 1},
		{pct("39%"), pct("39%"), 10, 4, 3},
		{nil, pct("39%"), 10, 0, 3},
		{pct("39%"), nil, 10, 4, 0},
		{nil, nil, 10, 0, 1},
	} {
		s, u := resolveFenceposts(rolling(tc.desired, tc.surge, tc.unavailable))
		if s != tc.wantS || u != tc.wantU {
			t.Errorf("surge %v unavailable %v of %d: got %d, %d, want %d, %d", tc.surge, tc.unavailable, tc.desired, s, u, tc.wantS, tc.wantU)
		}
	}
}

func TestNewRSNewReplicasAsUpstream(t *testing.T) {
	for _, tc := range []struct {
		name                                   string
		typ                                    appsv1.DeploymentStrategyType
		depReplicas, newRS, maxSurge, expected int32
	}{
		{"can not scale up - to newRSReplicas", appsv1.RollingUpdateDeploymentStrategyType, 1, 5, 1, 5},
		{"scale up - to depReplicas", appsv1.RollingUpdateDeploymentStrategyType, 6, 2, 10, 6},
		{"recreate - to depReplicas", appsv1.RecreateDeploymentStrategyType, 3, 1, 1, 3},
	} {
		d := rolling(tc.depReplicas, ptr.To(intstr.FromInt32(tc.maxSurge)), ptr.To(intstr.FromInt32(1)))
		d.Spec.Strategy.Type = tc.typ
		rs5 := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(int32(5))}}
		newRS := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(tc.newRS)}}
		got, err := newRSNewReplicas(d, []*appsv1.ReplicaSet{rs5}, newRS)
		if err != nil || got != tc.expected {
			t.Errorf("%s: got %d (%v), want %d", tc.name, got, err, tc.expected)
		}
	}
}

func TestReplicaSetFractionAsUpstream(t *testing.T) {
	for _, tc := range []struct {
		name                                string
		replicas, statusReplicas, surge, rs int32
		maxReplicasAnnotation               string
		expected                            int32
	}{
		{"empty deployment always scales to 0", 0, 0, 0, 10, "", -10},
		{"missing max-replicas annotation", 10, 0, 0, 5, "", 0},
		{"max-replicas annotation 0", 10, 0, 0, 5, "0", 0},
		{"scale up by 1/5, annotation missing", 120, 100, 0, 50, "", 10},
		{"scale up by 1/5, annotation 0", 120, 100, 0, 50, "0", 10},
		{"scale up by 1/5", 120, 0, 0, 50, "100", 10},
		{"scale up with maxSurge by about 1/5", 120, 0, 10, 50, "110", 9},
		{"scale down by 1/6", 10, 0, 0, 6, "12", -1},
		{"scale down with maxSurge by about 1/6", 100, 0, 10, 50, "130", -8},
	} {
		d := rolling(tc.replicas, ptr.To(intstr.FromInt32(tc.surge)), ptr.To(intstr.FromInt32(1)))
		d.Status.Replicas = tc.statusReplicas
		rs := &appsv1.ReplicaSet{Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To(tc.rs)}}
		if tc.maxReplicasAnnotation != "" {
			rs.Annotations = map[string]string{MaxReplicasAnnotation: tc.maxReplicasAnnotation}
		}
		if got := replicaSetFraction(rs, d); got != tc.expected {
			t.Errorf("%s: got %d, want %d", tc.name, got, tc.expected)
		}
	}
}
