package cronjob

import (
	"context"
	_ "embed"
	"fmt"
	"strconv"
	"sync"
	"time"

	kbatch "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
	"github.com/ctrlsim/ctrlsim/examples/cronjob/internal/controller"
	webhookv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/internal/webhook/v1"
	"github.com/ctrlsim/ctrlsim/models/kube"
	"github.com/ctrlsim/ctrlsim/operatortest/kubeworld"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/process"
)

// The world's names: the operator process running the tutorial's controller,
// the process running the job controller model, and the one CronJob the
// workload creates.
const (
	Operator  = "cronjob"
	JobModel  = "kube-controller-manager"
	Namespace = "default"
	Name      = "hello"
)

// The kinds a plan's lag and hold faults can name.
const (
	CronJobKind = "batch.tutorial.kubebuilder.io/v1/CronJob"
	JobKind     = "batch/v1/Job"
)

// The phases of a run (Drive).
const (
	FaultPhase = 4 * time.Minute
	HealBudget = 3 * time.Minute
)

// DefaultJobDuration is how long a Job runs when the workload does not say.
const DefaultJobDuration = 30 * time.Second

//go:embed testdata/batch.tutorial.kubebuilder.io_cronjobs.yaml
var crdYAML []byte

// Scheme is the scheme the tutorial's cmd/main.go builds: client-go's kinds and
// the tutorial's API.
func Scheme() *runtime.Scheme {
	s := runtime.NewScheme()
	utilruntime.Must(clientgoscheme.AddToScheme(s))
	utilruntime.Must(batchv1.AddToScheme(s))
	return s
}

// CRDs serves the tutorial's generated CRD, so that its OpenAPI schema prunes,
// defaults (concurrencyPolicy: Allow) and validates CronJobs as kube-apiserver
// would.
func CRDs() []apiserver.CRD {
	crds := parsedCRDs()
	out := make([]apiserver.CRD, len(crds))
	for i, crd := range crds {
		out[i] = crd
		out[i].Schema = crd.Schema.DeepCopy() // each world gets its own
	}
	return out
}

// parsedCRDs parses the manifest once per test binary: 0.2 MB of YAML took
// 40 ms, as long as a run.
var parsedCRDs = sync.OnceValue(func() []apiserver.CRD {
	crds, err := apiserver.CRDsFromYAML(crdYAML)
	if err != nil {
		panic(fmt.Sprintf("the tutorial's CRD manifest: %v", err))
	}
	return crds
})

//go:embed testdata/webhook-manifests.yaml
var webhookYAML []byte

// Webhooks are the tutorial's webhook configurations (config/webhook/manifests.yaml,
// generated from its kubebuilder:webhook markers): the defaulter and the
// validator of CronJobs on create and update, failurePolicy Fail.
func Webhooks() []process.WebhookConfig {
	configs, err := process.WebhookConfigsFromYAML(webhookYAML)
	if err != nil {
		panic(fmt.Sprintf("the tutorial's webhook manifests: %v", err))
	}
	return configs
}

// SetupWebhooks registers the tutorial's webhooks on mgr, as its cmd/main.go
// does (ENABLE_WEBHOOKS is not "false").
func SetupWebhooks(mgr manager.Manager) error {
	return webhookv1.SetupCronJobWebhookWithManager(mgr)
}

// DefaultAsTheWebhook defaults cj as the tutorial's defaulting webhook does,
// with the values its SetupCronJobWebhookWithManager gives the defaulter: for
// an object created before the webhook serves (operatortest's Objects).
func DefaultAsTheWebhook(cj *batchv1.CronJob) error {
	d := &webhookv1.CronJobDefaulter{DefaultConcurrencyPolicy: batchv1.AllowConcurrent, DefaultSuspend: false,
		DefaultSuccessfulJobsHistoryLimit: 3, DefaultFailedJobsHistoryLimit: 1}
	return d.Default(context.Background(), cj)
}

// World is the tutorial's controller manager next to kube-controller-manager
// (models/kube's job controller and garbage collector) and the kubelet model,
// for a run of p, with the workload actions create-cronjob and suspend.
func World(p *plan.Plan) cluster.Options {
	return cluster.Options{
		Scheme:   Scheme(),
		CRDs:     CRDs(),
		Webhooks: Webhooks(),
		Processes: []process.Spec{
			{Name: Operator, Setup: func(p *process.Process) error {
				mgr := p.Manager()
				// As the tutorial's cmd/main.go does (no Clock: SetupWithManager
				// installs its realClock, which calls time.Now), its webhooks
				// after its controller.
				if err := (&controller.CronJobReconciler{
					Client: mgr.GetClient(),
					Scheme: mgr.GetScheme(),
				}).SetupWithManager(mgr); err != nil {
					return err
				}
				return SetupWebhooks(mgr)
			}},
			{Name: JobModel, Setup: func(p *process.Process) error {
				mgr := p.Manager()
				jc := &kube.JobController{Client: mgr.GetClient(), Clock: p.Clock(), Recorder: p.GetEventRecorderFor("job-controller")}
				if err := jc.SetupWithManager(mgr); err != nil {
					return err
				}
				// The tutorial deletes its old Jobs in the background: the
				// collector deletes their pods.
				gc := &kube.GarbageCollector{Client: mgr.GetClient(), APIReader: mgr.GetAPIReader(), Graph: mgr.GetCache(),
					Kinds: []client.Object{&corev1.Pod{}, &kbatch.Job{}}}
				return gc.SetupWithManager(mgr)
			}},
			kubeworld.Kubelet(p, nil, kubeworld.Delays{}),
		},
		Actions: map[string]cluster.Action{
			"create-cronjob": cluster.Act(createCronJob, "schedule", "policy", "successful", "failed", "deadline", "duration"),
			"suspend":        cluster.Act(suspend),
		},
	}
}

// NewCronJob is the CronJob the workload creates, from a create-cronjob step's
// arguments. An absent schedule or deadline takes the tutorial's sample's
// (config/samples): schedule "*/1 * * * *", startingDeadlineSeconds 60
// (deadline=none for none). An absent policy, successful or failed is left
// out, for the tutorial's defaulting webhook to fill when the apiserver calls
// it (concurrencyPolicy Allow, suspend false, successfulJobsHistoryLimit 3,
// failedJobsHistoryLimit 1).
// duration= (whole seconds) is how long its Jobs run: their container runs
// "sleep N" first, which the kubelet model runs for N seconds.
func NewCronJob(args plan.Args) (*batchv1.CronJob, error) {
	get := func(key, def string) string {
		if v := args.Get(key); v != "" {
			return v
		}
		return def
	}
	num := func(key string) (*int32, error) {
		if args.Get(key) == "" {
			return nil, nil // the webhook defaults it
		}
		n, err := strconv.ParseInt(args.Get(key), 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%s=: %w", key, err)
		}
		return ptr.To(int32(n)), nil
	}
	successful, err := num("successful")
	if err != nil {
		return nil, err
	}
	failed, err := num("failed")
	if err != nil {
		return nil, err
	}
	var deadline *int64
	if d := get("deadline", "60"); d != "none" {
		n, err := strconv.ParseInt(d, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("deadline=: %w", err)
		}
		deadline = &n
	}
	d, err := time.ParseDuration(get("duration", DefaultJobDuration.String()))
	if err != nil || d < 0 || d%time.Second != 0 {
		return nil, fmt.Errorf("duration=: want whole seconds (90s), got %q", args.Get("duration"))
	}
	return &batchv1.CronJob{
		ObjectMeta: metav1.ObjectMeta{Namespace: Namespace, Name: Name},
		Spec: batchv1.CronJobSpec{
			Schedule:                   get("schedule", "*/1 * * * *"),
			StartingDeadlineSeconds:    deadline,
			ConcurrencyPolicy:          batchv1.ConcurrencyPolicy(args.Get("policy")),
			SuccessfulJobsHistoryLimit: successful,
			FailedJobsHistoryLimit:     failed,
			JobTemplate: kbatch.JobTemplateSpec{
				Spec: kbatch.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
					RestartPolicy: corev1.RestartPolicyOnFailure,
					Containers: []corev1.Container{{
						Name: "hello", Image: "busybox",
						Args: []string{"/bin/sh", "-c", fmt.Sprintf("sleep %d; date; echo Hello from the Kubernetes cluster", int(d.Seconds()))},
					}},
				}}},
			},
		},
	}, nil
}

func createCronJob(c *cluster.Cluster, args plan.Args) error {
	cj, err := NewCronJob(args)
	if err != nil {
		return err
	}
	// Refused while the tutorial's webhook does not answer (at 0 s its
	// manager has not started), the step is applied again a second later, as
	// an applier retries (package cluster).
	return c.Admin().Create(context.Background(), cj)
}

// suspend sets spec.suspend, as a user pausing the CronJob does.
func suspend(c *cluster.Cluster, _ plan.Args) error {
	cj := &batchv1.CronJob{}
	if err := c.Admin().Get(context.Background(), client.ObjectKey{Namespace: Namespace, Name: Name}, cj); err != nil {
		return err
	}
	patch := client.MergeFrom(cj.DeepCopy())
	cj.Spec.Suspend = ptr.To(true)
	return c.Admin().Patch(context.Background(), cj, patch)
}

// Drive runs a world the way every test here does: the fault phase, heal,
// then the user suspends the CronJob and the world runs the heal budget, so
// that it comes to rest (no new Jobs; the running ones finish) before the
// at-rest properties are judged.
func Drive(c *cluster.Cluster) error {
	c.RunFor(FaultPhase)
	c.Heal()
	if err := suspend(c, nil); err != nil {
		return fmt.Errorf("suspending the CronJob after the fault phase: %w", err)
	}
	c.RunFor(HealBudget)
	return nil
}
