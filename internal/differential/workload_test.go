package differential

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/internal/envtestenv"
)

// The workload scripts: each runs in a namespace of its own, on envtest with the real
// kube-controller-manager and in the simulator with the models of models/kube, the
// test playing the kubelet on both (Kubelet).
var workloadScripts = map[string][]WorkloadStep{
	"deployment": {
		{Name: "create 3 replicas of web:1", Do: createStep(func(ns string) client.Object { return WorkloadDeployment(ns, "web", 3, "web:1") }),
			Settled: deploymentRolledOut("web")},
		{Name: "scale up to 5", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](5) }),
			Settled: deploymentRolledOut("web")},
		{Name: "scale down to 2", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Replicas = ptr.To[int32](2) }),
			Settled: deploymentRolledOut("web")},
		{Name: "image web:2 (rolling update)", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: deploymentRolledOut("web")},
	},
	// A script of its own, so that the Deployment's ScalingReplicaSet events stay under
	// the 10 similar events client-go's EventCorrelator combines (gapEventsNotAggregated).
	"deployment-rollback": {
		{Name: "create 2 replicas of web:1", Do: createStep(func(ns string) client.Object { return WorkloadDeployment(ns, "web", 2, "web:1") }),
			Settled: deploymentRolledOut("web")},
		{Name: "image web:2 (rolling update)", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: deploymentRolledOut("web")},
		// Back to the first template: its ReplicaSet is scaled up again and takes
		// revision 3, keeping the revisions it had in revision-history.
		{Name: "image web:1 again (rollback)", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:1" }),
			Settled: deploymentRolledOut("web")},
	},
	// 11 pods of one ReplicaSet: kube-controller-manager's recorder combines the
	// SuccessfulCreate events after the 10th (gapEventsNotAggregated).
	"deployment-11-replicas": {
		{Name: "create 11 replicas", Do: createStep(func(ns string) client.Object { return WorkloadDeployment(ns, "many", 11, "web:1") }),
			Settled: deploymentRolledOut("many")},
	},
	"deployment-recreate": {
		{Name: "create 2 replicas of web:1, Recreate", Do: createStep(func(ns string) client.Object {
			d := WorkloadDeployment(ns, "web", 2, "web:1")
			d.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType}
			return d
		}), Settled: deploymentRolledOut("web")},
		{Name: "image web:2 (recreate)", Do: patchDeployment("web", func(d *appsv1.Deployment) { d.Spec.Template.Spec.Containers[0].Image = "web:2" }),
			Settled: deploymentRolledOut("web")},
	},
	"deployment-stuck": {
		// Pods that never start: the rollout exceeds its progress deadline
		// (progress.go: ProgressDeadlineExceeded).
		{Name: "create 2 replicas whose pods never start, progressDeadlineSeconds 2", Do: createStep(func(ns string) client.Object {
			d := WorkloadDeployment(ns, "stuck", 2, "web:1")
			d.Spec.ProgressDeadlineSeconds = ptr.To[int32](2)
			d.Spec.Template.Annotations = map[string]string{KubeletAnnotation: KubeletNeverStart}
			return d
		}), Settled: deploymentProgress("stuck", "ProgressDeadlineExceeded")},
	},
	"job-completes": {
		{Name: "a Job whose pod succeeds", Do: createStep(func(ns string) client.Object { return WorkloadJob(ns, "pi", 6, KubeletSucceed) }),
			Settled: jobFinished("pi")},
	},
	"job-parallel": {
		{Name: "a Job of 3 completions, 2 in parallel", Do: createStep(func(ns string) client.Object {
			j := WorkloadJob(ns, "batch", 6, KubeletSucceed)
			j.Spec.Completions, j.Spec.Parallelism = ptr.To[int32](3), ptr.To[int32](2)
			return j
		}), Settled: jobFinished("batch")},
	},
	"job-fails": {
		// backoffLimit 1: the first pod fails, a second is created after the job
		// controller's 10s pod failure backoff (DefaultJobPodFailureBackOff), and fails:
		// 2 failures > backoffLimit.
		{Name: "a Job whose pods fail, backoffLimit 1", Do: createStep(func(ns string) client.Object { return WorkloadJob(ns, "flaky", 1, KubeletFail) }),
			Settled: jobFinished("flaky")},
	},
}

func createStep(obj func(ns string) client.Object) func(context.Context, client.Client, string) error {
	return func(ctx context.Context, c client.Client, ns string) error { return c.Create(ctx, obj(ns)) }
}

func patchDeployment(name string, mutate func(*appsv1.Deployment)) func(context.Context, client.Client, string) error {
	return func(ctx context.Context, c client.Client, ns string) error {
		d := &appsv1.Deployment{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, d); err != nil {
			return err
		}
		base := d.DeepCopy()
		mutate(d)
		return c.Patch(ctx, d, client.MergeFrom(base))
	}
}

// deploymentRolledOut: the controller has observed the latest generation, every
// replica is updated, ready and available (kubectl rollout status's test,
// k8s.io/kubectl pkg/polymorphichelpers/rollout_status.go), Progressing says
// NewReplicaSetAvailable, the old ReplicaSets are scaled to 0 and the pods are exactly
// the replicas, Running.
func deploymentRolledOut(name string) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		var d *appsv1.Deployment
		for i := range s.Deployments {
			if s.Deployments[i].Name == name {
				d = &s.Deployments[i]
			}
		}
		if d == nil || d.Spec.Replicas == nil {
			return false
		}
		want, st := *d.Spec.Replicas, d.Status
		if st.ObservedGeneration != d.Generation || st.Replicas != want || st.UpdatedReplicas != want ||
			st.ReadyReplicas != want || st.AvailableReplicas != want || st.UnavailableReplicas != 0 {
			return false
		}
		progressing := false
		for _, c := range st.Conditions {
			progressing = progressing || c.Type == appsv1.DeploymentProgressing && c.Reason == "NewReplicaSetAvailable"
		}
		var active int32
		for _, rs := range s.ReplicaSets {
			if rs.Spec.Replicas != nil {
				active += *rs.Spec.Replicas
			}
			if rs.Status.ObservedGeneration != rs.Generation {
				return false
			}
		}
		running := int32(0)
		for _, p := range s.Pods {
			if p.Status.Phase == corev1.PodRunning && p.DeletionTimestamp == nil {
				running++
			}
		}
		return progressing && active == want && running == want && int32(len(s.Pods)) == want
	}
}

// deploymentProgress: the Deployment's Progressing condition has reason, for the
// latest generation.
func deploymentProgress(name, reason string) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		for _, d := range s.Deployments {
			if d.Name != name || d.Status.ObservedGeneration != d.Generation {
				continue
			}
			for _, c := range d.Status.Conditions {
				if c.Type == appsv1.DeploymentProgressing && c.Reason == reason {
					return true
				}
			}
		}
		return false
	}
}

// jobFinished: the Job has its terminal condition (Complete or Failed), no pod is
// active or terminating, and no pod keeps the tracking finalizer.
func jobFinished(name string) func(*Snapshot) bool {
	return func(s *Snapshot) bool {
		var j *batchv1.Job
		for i := range s.Jobs {
			if s.Jobs[i].Name == name {
				j = &s.Jobs[i]
			}
		}
		if j == nil {
			return false
		}
		done := false
		for _, c := range j.Status.Conditions {
			done = done || (c.Type == batchv1.JobComplete || c.Type == batchv1.JobFailed) && c.Status == corev1.ConditionTrue
		}
		if !done || j.Status.Active != 0 || ptr.Deref(j.Status.Terminating, 0) != 0 {
			return false
		}
		for _, p := range s.Pods {
			for _, f := range p.Finalizers {
				if f == batchv1.JobTrackingFinalizer {
					return false
				}
			}
		}
		return true
	}
}

// realSide is envtest with the real kube-controller-manager.
type realSide struct {
	c   client.Client
	kcm *KubeControllerManager
}

func (r *realSide) Client() client.Client { return r.c }
func (r *realSide) Now() time.Time        { return time.Now() }
func (r *realSide) Wait(d time.Duration)  { time.Sleep(d) }
func (r *realSide) Failed() error {
	if exited, err := r.kcm.Exited(); exited {
		return fmt.Errorf("kube-controller-manager exited (%v); its log ends:\n%s", err, r.kcm.Log(30))
	}
	return nil
}

var (
	kcmOnce    sync.Once
	kcmRecords map[string][]WorkloadRecord
	kcmErr     error
	kcmTime    time.Duration
)

// needKubeControllerManagerRecords runs every workload script once per test binary on
// a fresh envtest (of its own: the shared one's Deployments would be reconciled by the
// controller-manager) with the real kube-controller-manager, and returns their records.
// Without KUBEBUILDER_ASSETS the test is skipped (failed under CI=true); with it, a
// missing kube-controller-manager is a failure.
func needKubeControllerManagerRecords(t *testing.T) map[string][]WorkloadRecord {
	t.Helper()
	assets, err := assetsFromEnv()
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("envtest is required here: %v", err)
		}
		t.Skipf("skipping the workload comparison: %v", err)
	}
	kcmOnce.Do(func() {
		start := time.Now()
		kcmRecords, kcmErr = runOnKubeControllerManager(assets)
		kcmTime = time.Since(start)
	})
	if kcmErr != nil {
		t.Fatal(kcmErr)
	}
	return kcmRecords
}

func runOnKubeControllerManager(assets string) (map[string][]WorkloadRecord, error) {
	if _, err := os.Stat(assets + "/kube-controller-manager"); err != nil {
		return nil, fmt.Errorf("%w in %s (KUBEBUILDER_ASSETS): run `make envtest-assets`", ErrNoKubeControllerManager, assets)
	}
	env, err := envtestenv.Start(assets, envtestenv.Options{Scheme: Scheme})
	if err != nil {
		return nil, err
	}
	defer func() { _ = env.Stop() }()
	kcm, err := StartKubeControllerManager(assets, env.Environment.KubeConfig, KubeControllerManagerControllers)
	if err != nil {
		return nil, err
	}
	defer func() { _ = kcm.Stop() }()
	side := &realSide{c: env.Admin, kcm: kcm}
	ctx := context.Background()
	var mu sync.Mutex
	var wg sync.WaitGroup
	records := map[string][]WorkloadRecord{}
	var errs []error
	for name, steps := range workloadScripts {
		ns := "workload-" + name
		if err := env.Admin.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			return nil, err
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			recs, err := RunWorkload(ctx, side, ns, RealTiming, steps)
			mu.Lock()
			defer mu.Unlock()
			records[name] = recs
			if err != nil {
				errs = append(errs, fmt.Errorf("%s on kube-controller-manager: %w", name, err))
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("%w\nkube-controller-manager's log ends:\n%s", err, kcm.Log(20))
	}
	return records, nil
}

// TestKubeControllerManagerWorkloads runs the workload scripts on the real
// kube-controller-manager and checks what upstream documents of each step (the
// controllers' reasons and messages, revisions, ownerReferences, counts). The
// comparison with the models uses the same records.
func TestKubeControllerManagerWorkloads(t *testing.T) {
	recs := needKubeControllerManagerRecords(t)
	t.Logf("the workload scripts ran on kube-controller-manager in %v (envtest and kube-controller-manager started in it)", kcmTime.Round(100*time.Millisecond))
	for name, steps := range workloadScripts {
		if len(recs[name]) != len(steps) {
			t.Fatalf("%s: %d records for %d steps", name, len(recs[name]), len(steps))
		}
	}
	if testing.Verbose() {
		for _, name := range slices.Sorted(maps.Keys(workloadScripts)) {
			for _, r := range recs[name] {
				t.Logf("%s / %s:\n  %s", name, r.Step, strings.Join(r.Lines, "\n  "))
			}
		}
	}
	expect := func(script string, step int, wants ...string) {
		t.Helper()
		r := recs[script][step]
		all := strings.Join(r.Lines, "\n")
		for _, w := range wants {
			if !strings.Contains(all, w) {
				t.Errorf("%s / %s: no %s in\n  %s", script, r.Step, w, strings.Join(r.Lines, "\n  "))
			}
		}
	}
	count := func(script string, step int, prefix, sub string) int {
		n := 0
		for _, l := range recs[script][step].Lines {
			if strings.HasPrefix(l, prefix) && strings.Contains(l, sub) {
				n++
			}
		}
		return n
	}
	// pkg/controller/deployment/sync.go, util/deployment_util.go: the revision and
	// replica annotations; progress.go: the conditions' reasons and messages.
	expect("deployment", 0,
		`"deployment.kubernetes.io/revision":"1"`,
		`"reason":"MinimumReplicasAvailable"`, `"message":"Deployment has minimum availability."`,
		`"reason":"NewReplicaSetAvailable"`,
		`"deployment.kubernetes.io/desired-replicas":"3"`, `"deployment.kubernetes.io/max-replicas":"4"`,
		`"kind":"ReplicaSet"`, `"controller":true`, `"blockOwnerDeletion":true`, `"uid":"uid(Deployment/web)"`)
	for step, want := range map[int]int{0: 3, 1: 5, 2: 2, 3: 2} {
		if n := count("deployment", step, "Pod ", `"phase":"Running"`); n != want {
			t.Errorf("deployment step %d: %d running pods, want %d", step, n, want)
		}
	}
	expect("deployment", 1, `"deployment.kubernetes.io/desired-replicas":"5"`, `"deployment.kubernetes.io/max-replicas":"7"`)
	expect("deployment", 3, `"deployment.kubernetes.io/revision":"2"`, `"image":"web:2"`)
	// util/deployment_util.go SetNewReplicaSetAnnotations: a ReplicaSet brought back
	// takes the next revision and lists its old ones in revision-history.
	expect("deployment-rollback", 2, `"deployment.kubernetes.io/revision":"3","deployment.kubernetes.io/revision-history":"1"`)
	expect("deployment-stuck", 0, `"reason":"ProgressDeadlineExceeded"`, `"message":"ReplicaSet \"stuck-`, `has timed out progressing."`,
		`"reason":"MinimumReplicasUnavailable"`, `"unavailableReplicas":2`)
	// client-go tools/record/events_cache.go EventAggregate: the 11th similar event.
	expect("deployment-11-replicas", 0, `"(combined from similar events): Created pod: many-`)
	expect("job-parallel", 0, `"succeeded":3`, `"message":"Reached expected number of succeeded pods"`)
	if n := count("deployment", 3, "ReplicaSet ", `"replicas":0`); n != 1 {
		t.Errorf("after the rolling update: %d ReplicaSets scaled to 0, want the old one", n)
	}
	if n := count("deployment", 3, "Pod ", `"image":"web:1"`); n != 0 {
		t.Errorf("after the rolling update: %d pods of the old image", n)
	}
	// pkg/controller/job/job_controller.go: newSuccessCondition, then Complete with
	// the same reason; a failed Job's FailureTarget, then Failed.
	expect("job-completes", 0,
		`"type":"SuccessCriteriaMet"`, `"type":"Complete"`, `"reason":"CompletionsReached"`,
		`"message":"Reached expected number of succeeded pods"`, `"succeeded":1`,
		`"batch.kubernetes.io/controller-uid":"uid(Job/pi)"`, `"name":"pi-*"`, `"phase":"Succeeded"`,
		`"completionTime":"<time>"`)
	expect("job-fails", 0,
		`"type":"FailureTarget"`, `"type":"Failed"`, `"reason":"BackoffLimitExceeded"`,
		`"message":"Job has reached the specified backoff limit"`, `"failed":2`)
	if n := count("job-fails", 0, "Pod ", `"phase":"Failed"`); n != 2 {
		t.Errorf("the failing Job: %d failed pods, want 2 (backoffLimit 1)", n)
	}
}
