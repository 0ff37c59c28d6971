package pipeline_test

// The tests of this file show the Known gaps of doc.go, each as it is today:
// a change that closes a gap breaks its test, and the item goes with it.

import (
	"context"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	testclock "k8s.io/utils/clock/testing"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/client/interceptor"

	"github.com/ctrlsim/ctrlsim/controllers/pipeline"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
)

func TestARemoteTargetIsUnreadyAndAnUntypedAppKindUnreadable(t *testing.T) {
	r, pr, c, _ := world(t, variant.Fixed)
	var p pipeline.Pipeline
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Environments[2].Targets = append(p.Spec.Environments[2].Targets,
		pipeline.Target{Namespace: "prod", ClusterRef: &pipeline.CrossNamespaceClusterReference{Kind: "GitopsCluster", Name: "eu"}})
	if err := c.Update(ctx, &p); err != nil {
		t.Fatal(err)
	}
	reconcileOK(t, r)
	if ts := status(t, c).Environments["prod"].Targets[1]; ts.Ready || ts.Error != "remote clusters are not modelled" {
		t.Fatalf("remote target %+v, want unready: remote clusters are not modelled", ts)
	}
	if len(pr.calls) != 0 {
		t.Fatalf("Promote calls %v with a remote target, want none (unready)", pr.calls)
	}

	r, _, c, _ = world(t, variant.Fixed)
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	p.Spec.AppRef = pipeline.LocalAppReference{APIVersion: "kustomize.toolkit.fluxcd.io/v1", Kind: "Kustomization", Name: "podinfo"}
	if err := c.Update(ctx, &p); err != nil {
		t.Fatal(err)
	}
	reconcileOK(t, r)
	if ts := status(t, c).Environments["dev"].Targets[0]; !strings.Contains(ts.Error, "could not be interpreted as an object") {
		t.Errorf("a Kustomization target %+v, want it unreadable (not a kind of the scheme)", ts)
	}
}

func TestStatusIsWrittenByMergePatchesWithNoFieldOwnerOrConflictRetry(t *testing.T) {
	var patches []string
	conflicts := 1
	c := fake.NewClientBuilder().WithScheme(scheme(t)).
		WithObjects(app("dev", "v2"), app("staging", "v1"), app("prod", "v1"), newPipeline()).
		WithStatusSubresource(&pipeline.Pipeline{}, &pipeline.HelmRelease{}).
		WithInterceptorFuncs(interceptor.Funcs{
			SubResourcePatch: func(ctx context.Context, c client.Client, sub string, o client.Object, p client.Patch, opts ...client.SubResourcePatchOption) error {
				po := &client.SubResourcePatchOptions{}
				po.ApplyOptions(opts)
				patches = append(patches, sub+" "+string(p.Type())+" owner="+po.FieldManager)
				if conflicts > 0 {
					conflicts--
					return apierrors.NewConflict(schema.GroupResource{Group: pipeline.GroupVersion.Group, Resource: "pipelines"}, o.GetName(), nil)
				}
				return c.SubResource(sub).Patch(ctx, o, p, opts...)
			},
			Update: func(context.Context, client.WithWatch, client.Object, ...client.UpdateOption) error {
				t.Error("an update of an object, want status patches only")
				return nil
			},
		}).Build()
	r := &pipeline.Reconciler{Client: c, Cache: c, Promoter: &promoter{}, Clock: testclock.NewFakeClock(epoch), Variant: variant.Fixed}
	if _, err := r.Reconcile(ctx, req); !apierrors.IsConflict(err) || len(patches) != 1 {
		t.Fatalf("a conflicting status patch: %v after %d patches, want the conflict returned, not retried", err, len(patches))
	}
	reconcileOK(t, r)
	for _, p := range patches {
		if p != "status "+string(types.MergePatchType)+" owner=" {
			t.Errorf("patch %q, want a status merge patch with no field owner", p)
		}
	}
}

func TestEveryStrategyIsOnePromoterAndTheRecordHoldsNoStrategyResult(t *testing.T) {
	r, pr, c, _ := world(t, variant.Fixed)
	var p pipeline.Pipeline
	if err := c.Get(ctx, key, &p); err != nil {
		t.Fatal(err)
	}
	p.Spec.Environments[1].Promotion = &pipeline.Promotion{PullRequest: &pipeline.PullRequestPromotion{URL: "https://github.com/org/repo", Branch: "main"}}
	if err := c.Update(ctx, &p); err != nil {
		t.Fatal(err)
	}
	reconcileOK(t, r)
	if len(pr.calls) != 1 || pr.calls[0] != stagingV2 {
		t.Fatalf("Promote calls %v, want [%s] through the one Promoter", pr.calls, stagingV2)
	}
	rec := status(t, c).Environments["staging"].Promotion
	if rec == nil || *rec != (pipeline.PromotionStatus{Revision: "v2", LastAttemptedTime: rec.LastAttemptedTime, Succeeded: true}) {
		t.Errorf("record %+v, want revision, time and success only (no pull-request URL)", rec)
	}
}
