package differential

import (
	"os"
	"path/filepath"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/yaml"

	"github.com/ctrlsim/ctrlsim/sim/apiserver"
)

// deploy/explore-job.yaml (the catalogue explored as an Indexed Job) is a Job the
// real kube-apiserver accepts: a server-side dry-run create, with strict field
// validation (an unknown or misspelt field fails it), succeeds and stores nothing.
func TestTheExploreJobManifestIsAccepted(t *testing.T) {
	real := needReal(t)
	b, err := os.ReadFile(filepath.Join("..", "..", "deploy", "explore-job.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	job := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(b, &job.Object); err != nil {
		t.Fatalf("deploy/explore-job.yaml: %v", err)
	}
	if job.GetKind() != "Job" || job.GetAPIVersion() != "batch/v1" {
		t.Fatalf("deploy/explore-job.yaml is a %s %s, want a batch/v1 Job", job.GetAPIVersion(), job.GetKind())
	}
	job.SetNamespace("default")
	cl, err := real.Client(apiserver.Admin)
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Create(ctx, job, client.DryRunAll, client.FieldValidation("Strict")); err != nil {
		t.Fatalf("kube-apiserver refuses deploy/explore-job.yaml: %v", err)
	}
	if mode, _, _ := unstructured.NestedString(job.Object, "spec", "completionMode"); mode != "Indexed" {
		t.Errorf("the dry-run answers completionMode %q, want Indexed", mode)
	}
	stored := &unstructured.Unstructured{}
	stored.SetGroupVersionKind(job.GroupVersionKind())
	if err := cl.Get(ctx, client.ObjectKeyFromObject(job), stored); !apierrors.IsNotFound(err) {
		t.Errorf("after a dry-run create, get: %v; want NotFound", err)
	}
}
