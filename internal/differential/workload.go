package differential

import (
	"context"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"maps"
	"regexp"
	"slices"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A WorkloadSide is where a workload script runs: envtest with the real
// kube-controller-manager, or the simulator with the models of models/kube. The
// script acts through Client as the admin and plays the kubelet (Kubelet).
type WorkloadSide interface {
	// Client acts as the admin.
	Client() client.Client
	// Now is the side's clock: the wall clock for envtest, the simulated clock for
	// the simulator. The kubelet's timestamps come from it.
	Now() time.Time
	// Wait lets d pass: a sleep on envtest, d of simulated time in the simulator.
	Wait(d time.Duration)
	// Failed returns why the side cannot go on (the controller-manager exited), or nil.
	Failed() error
}

// A WorkloadStep is one step of a workload script: an action, then the kubelet and
// the controllers until Settled holds and the namespace stays the same for Quiet.
type WorkloadStep struct {
	Name    string
	Do      func(ctx context.Context, c client.Client, ns string) error
	Settled func(s *Snapshot) bool
}

// A WorkloadRecord is what a step left in the namespace, normalised (Snapshot.Lines).
type WorkloadRecord struct {
	Step  string
	Lines []string
}

// WorkloadTiming bounds a script run on one side.
type WorkloadTiming struct {
	// Poll is the time between two kubelet passes and looks at the namespace.
	Poll time.Duration
	// Quiet is how long the normalised record must stay the same once Settled holds.
	Quiet time.Duration
	// Timeout bounds the time each step waits (Wait calls; the reads in between are
	// not counted).
	Timeout time.Duration
}

// RealTiming is the timing on envtest: the job controller batches pod events for
// one second (pkg/controller/job syncJobBatchPeriod), so a record must hold for more.
var RealTiming = WorkloadTiming{Poll: 100 * time.Millisecond, Quiet: 2 * time.Second, Timeout: 90 * time.Second}

// RunWorkload runs steps in namespace ns of side (which must exist) and returns one
// record per step.
func RunWorkload(ctx context.Context, side WorkloadSide, ns string, timing WorkloadTiming, steps []WorkloadStep) ([]WorkloadRecord, error) {
	c := side.Client()
	var records []WorkloadRecord
	for _, st := range steps {
		if err := st.Do(ctx, c, ns); err != nil {
			return records, fmt.Errorf("step %q: %w", st.Name, err)
		}
		var last []string
		var settledFor, waited time.Duration
		for {
			if err := side.Failed(); err != nil {
				return records, fmt.Errorf("step %q: %w", st.Name, err)
			}
			if err := Kubelet(ctx, c, ns, side.Now()); err != nil {
				return records, fmt.Errorf("step %q: the kubelet: %w", st.Name, err)
			}
			s, err := TakeSnapshot(ctx, c, ns)
			if err != nil {
				return records, fmt.Errorf("step %q: %w", st.Name, err)
			}
			lines := s.Lines()
			switch {
			case !st.Settled(s):
				settledFor = 0
			case slices.Equal(lines, last):
				settledFor += timing.Poll
			default:
				settledFor = 0
			}
			last = lines
			if settledFor >= timing.Quiet {
				records = append(records, WorkloadRecord{Step: st.Name, Lines: lines})
				break
			}
			if waited >= timing.Timeout {
				return records, fmt.Errorf("step %q did not settle within %v; last:\n  %s", st.Name, timing.Timeout, strings.Join(lines, "\n  "))
			}
			side.Wait(timing.Poll)
			waited += timing.Poll
		}
	}
	return records, nil
}

// KubeletAnnotation on a pod (from its template) tells Kubelet what its containers do:
// KubeletSucceed, KubeletFail, or KubeletNeverStart (the pod stays Pending, no status
// written). Without it the pod runs and is Ready.
const (
	KubeletAnnotation = "ctrlsim.dev/test-kubelet"
	KubeletSucceed    = "succeed"
	KubeletFail       = "fail"
	KubeletNeverStart = "never-start"
)

// Kubelet plays the kubelet for every pending pod of ns that is not being deleted: it
// writes the status a kubelet writes once the containers started and are ready
// (Running, the conditions True), or once they exited 0 (Succeeded) or 1 (Failed)
// according to KubeletAnnotation, with now as every timestamp
// (pkg/kubelet/status/generate.go and kubelet_pods.go generateAPIPodStatus:
// conditions PodReadyToStartContainers, Initialized, Ready, ContainersReady,
// PodScheduled; the Ready condition's reason PodCompleted once the pod has ended).
// Pods stay unbound (no nodeName), so their deletion is immediate, as for a pod whose
// kubelet has already stopped it.
func Kubelet(ctx context.Context, c client.Client, ns string, now time.Time) error {
	pods := &corev1.PodList{}
	if err := c.List(ctx, pods, client.InNamespace(ns)); err != nil {
		return err
	}
	for i := range pods.Items {
		p := &pods.Items[i]
		if p.DeletionTimestamp != nil || (p.Status.Phase != "" && p.Status.Phase != corev1.PodPending) ||
			p.Annotations[KubeletAnnotation] == KubeletNeverStart {
			continue
		}
		setPodStatus(p, p.Annotations[KubeletAnnotation], metav1.NewTime(now.Truncate(time.Second)))
		if err := c.Status().Update(ctx, p); err != nil {
			return fmt.Errorf("pod %s: %w", p.Name, err)
		}
	}
	return nil
}

func setPodStatus(p *corev1.Pod, outcome string, now metav1.Time) {
	cond := func(t corev1.PodConditionType, s corev1.ConditionStatus, reason string) corev1.PodCondition {
		return corev1.PodCondition{Type: t, Status: s, Reason: reason, LastTransitionTime: now}
	}
	ready, readyReason := corev1.ConditionTrue, ""
	phase := corev1.PodRunning
	var state func(c corev1.Container) corev1.ContainerState
	switch outcome {
	case KubeletSucceed, KubeletFail:
		ready, readyReason = corev1.ConditionFalse, "PodCompleted"
		phase = corev1.PodSucceeded
		code, reason := int32(0), "Completed"
		if outcome == KubeletFail {
			phase, code, reason = corev1.PodFailed, 1, "Error"
			readyReason = "PodFailed"
		}
		state = func(corev1.Container) corev1.ContainerState {
			return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{ExitCode: code, Reason: reason, StartedAt: now, FinishedAt: now}}
		}
	default:
		state = func(corev1.Container) corev1.ContainerState {
			return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
		}
	}
	p.Status = corev1.PodStatus{
		Phase: phase,
		Conditions: []corev1.PodCondition{
			cond(corev1.PodReadyToStartContainers, corev1.ConditionTrue, ""),
			cond(corev1.PodInitialized, corev1.ConditionTrue, ""),
			cond(corev1.PodReady, ready, readyReason),
			cond(corev1.ContainersReady, ready, readyReason),
			cond(corev1.PodScheduled, corev1.ConditionTrue, ""),
		},
		HostIP:    "10.0.0.1",
		HostIPs:   []corev1.HostIP{{IP: "10.0.0.1"}},
		PodIP:     podIP(p.Name),
		PodIPs:    []corev1.PodIP{{IP: podIP(p.Name)}},
		StartTime: &now,
		QOSClass:  corev1.PodQOSBestEffort,
	}
	for _, ctr := range p.Spec.Containers {
		st := state(ctr)
		p.Status.ContainerStatuses = append(p.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: ctr.Name, Image: ctr.Image, ImageID: ctr.Image,
			Ready: ready == corev1.ConditionTrue, Started: ptr.To(st.Running != nil), State: st,
		})
	}
}

// podIP is the address the test kubelet gives a pod: drawn from its name, so that a
// pod of the same name has the same address on both sides (the names of generated
// pods differ; the records keep only the addresses of endpoints, whose pods the
// scripts name).
func podIP(name string) string {
	h := fnv.New32a()
	_, _ = h.Write([]byte(name))
	x := h.Sum32()
	return fmt.Sprintf("10.1.%d.%d", x>>8&0xff, x&0xff%254+1)
}

// A Snapshot is the workload objects of a namespace.
type Snapshot struct {
	Deployments    []appsv1.Deployment
	ReplicaSets    []appsv1.ReplicaSet
	Pods           []corev1.Pod
	Jobs           []batchv1.Job
	Services       []corev1.Service
	EndpointSlices []discoveryv1.EndpointSlice
	Events         []corev1.Event
	// StatefulSets and their ControllerRevisions (workload_statefulset.go).
	StatefulSets           []appsv1.StatefulSet
	ControllerRevisions    []appsv1.ControllerRevision
	PersistentVolumeClaims []corev1.PersistentVolumeClaim
}

// TakeSnapshot lists the workload objects of ns.
func TakeSnapshot(ctx context.Context, c client.Client, ns string) (*Snapshot, error) {
	d, rs, p, j, e := &appsv1.DeploymentList{}, &appsv1.ReplicaSetList{}, &corev1.PodList{}, &batchv1.JobList{}, &corev1.EventList{}
	svc, eps := &corev1.ServiceList{}, &discoveryv1.EndpointSliceList{}
	sts, cr, pvc := &appsv1.StatefulSetList{}, &appsv1.ControllerRevisionList{}, &corev1.PersistentVolumeClaimList{}
	for _, l := range []client.ObjectList{d, rs, p, j, svc, eps, e, sts, cr, pvc} {
		if err := c.List(ctx, l, client.InNamespace(ns)); err != nil {
			return nil, err
		}
	}
	return &Snapshot{Deployments: d.Items, ReplicaSets: rs.Items, Pods: p.Items, Jobs: j.Items,
		Services: svc.Items, EndpointSlices: eps.Items, Events: e.Items,
		StatefulSets: sts.Items, ControllerRevisions: cr.Items, PersistentVolumeClaims: pvc.Items}, nil
}

// The fields of each kind a record keeps: what the controllers write (ownerReferences,
// labels, annotations, finalizers, replicas, status) and what identifies a child
// (its name, template labels, containers' images). Defaults, which are the apiserver's
// business and compared elsewhere, and managedFields are left out.
var recordedFields = map[string][][]string{
	"Deployment": {{"spec", "replicas"}, {"status"}},
	"ReplicaSet": {{"spec", "replicas"}, {"spec", "selector"}, {"spec", "template", "metadata", "labels"}, {"status"}},
	"Pod":        {{"spec", "containers"}, {"spec", "hostname"}, {"status", "phase"}},
	"Job":        {{"spec", "selector"}, {"spec", "template", "metadata", "labels"}, {"status"}},
	"Service":    {{"spec", "selector"}, {"spec", "ports"}},
	// An EndpointSlice's generation is not recorded: it counts the controller's
	// updates, and how pod events batch into syncs is timing (a real controller
	// may write once for three pods or three times). Endpoints are sorted by pod:
	// upstream fills a new slice in map order (EndpointSet.UnsortedList).
	"EndpointSlice": {{"addressType"}, {"ports"}, {"endpoints"}},
	// A StatefulSet's pods keep their names (normalName); a ControllerRevision's name
	// holds the hash of the template it records.
	"StatefulSet":        {{"spec", "replicas"}, {"status"}},
	"ControllerRevision": {{"revision"}},
	// A claim's status and defaults are the apiserver's (and a PV controller's).
	"PersistentVolumeClaim": {{"spec", "accessModes"}},
}

var recordedMeta = []string{"name", "labels", "annotations", "ownerReferences", "finalizers", "generation", "deletionTimestamp", "deletionGracePeriodSeconds"}

// Lines is the snapshot normalised, one line per object, sorted: kind, then the
// recorded fields as JSON. Names made from a generateName become the generateName
// followed by "*" (not a StatefulSet's pods: their names are their identity), uids become "uid(<Kind>/<name>)" of the object they belong to
// (when it is one of the snapshot's), timestamps "<time>", conditions are sorted by
// type (sortConditions), and a pod's containers keep their names, images and env only.
// resourceVersions are not recorded.
func (s *Snapshot) Lines() []string {
	type obj struct {
		kind string
		o    client.Object
	}
	var objs []obj
	for i := range s.Deployments {
		objs = append(objs, obj{"Deployment", &s.Deployments[i]})
	}
	for i := range s.ReplicaSets {
		objs = append(objs, obj{"ReplicaSet", &s.ReplicaSets[i]})
	}
	for i := range s.Pods {
		objs = append(objs, obj{"Pod", &s.Pods[i]})
	}
	for i := range s.Jobs {
		objs = append(objs, obj{"Job", &s.Jobs[i]})
	}
	for i := range s.Services {
		objs = append(objs, obj{"Service", &s.Services[i]})
	}
	for i := range s.EndpointSlices {
		objs = append(objs, obj{"EndpointSlice", &s.EndpointSlices[i]})
	}
	for i := range s.StatefulSets {
		objs = append(objs, obj{"StatefulSet", &s.StatefulSets[i]})
	}
	for i := range s.ControllerRevisions {
		objs = append(objs, obj{"ControllerRevision", &s.ControllerRevisions[i]})
	}
	for i := range s.PersistentVolumeClaims {
		objs = append(objs, obj{"PersistentVolumeClaim", &s.PersistentVolumeClaims[i]})
	}
	names := map[string]string{} // generated name -> normalised
	uids := map[string]string{}
	for _, o := range objs {
		n := normalName(o.o)
		if n != o.o.GetName() {
			names[o.o.GetName()] = n
		}
		uids[string(o.o.GetUID())] = "uid(" + o.kind + "/" + n + ")"
	}
	for _, o := range objs { // owners gone from the namespace (a deleted Service)
		for _, ref := range o.o.GetOwnerReferences() {
			if _, ok := uids[string(ref.UID)]; !ok {
				uids[string(ref.UID)] = "uid(" + ref.Kind + "/" + ref.Name + ")"
			}
		}
	}
	lines := make([]string, 0, len(objs))
	for _, o := range objs {
		u, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o.o)
		if err != nil {
			panic(err)
		}
		rec := map[string]any{}
		meta, _ := u["metadata"].(map[string]any)
		m := map[string]any{}
		for _, k := range recordedMeta {
			if v, ok := meta[k]; ok {
				m[k] = v
			}
		}
		m["name"] = normalName(o.o)
		rec["metadata"] = m
		for _, path := range recordedFields[o.kind] {
			if v, ok := nested(u, path); ok {
				setNested(rec, path, v)
			}
		}
		if o.kind == "Pod" {
			if ctrs, ok := nested(rec, []string{"spec", "containers"}); ok {
				var kept []any
				for _, c := range ctrs.([]any) {
					cm := c.(map[string]any)
					k := map[string]any{"name": cm["name"], "image": cm["image"]}
					if env, ok := cm["env"]; ok {
						k["env"] = env // JOB_COMPLETION_INDEX
					}
					kept = append(kept, k)
				}
				setNested(rec, []string{"spec", "containers"}, kept)
			}
		}
		if o.kind == "EndpointSlice" {
			delete(m, "generation")
			sortEndpoints(rec)
		}
		sortConditions(rec)
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(normalise(rec, uids, names)); err != nil {
			panic(err)
		}
		lines = append(lines, o.kind+" "+strings.TrimSuffix(b.String(), "\n"))
	}
	lines = append(lines, s.eventLines(uids, names)...)
	slices.Sort(lines)
	return lines
}

// eventLines records the Events: involved object (kind and normalised name), type,
// reason, message and reporting component, with the count of every Event that
// normalises to the same line summed (an Event's count is how many times its
// recorder saw it; pods' generated names normalised, deleted pods' too).
func (s *Snapshot) eventLines(uids, names map[string]string) []string {
	var prefixes []string // generateNames of the pods the workloads make
	for _, rs := range s.ReplicaSets {
		prefixes = append(prefixes, rs.Name+"-")
	}
	for _, j := range s.Jobs {
		prefixes = append(prefixes, j.Name+"-")
	}
	slices.Sort(prefixes)
	generated := func(x string) string {
		for _, p := range prefixes {
			x = regexp.MustCompile(`\b`+regexp.QuoteMeta(p)+`[a-z0-9]{5}\b`).ReplaceAllString(x, p+"*")
		}
		return x
	}
	counts := map[string]int32{}
	for _, e := range s.Events {
		if e.Reason == "ClusterIPNotAllocated" {
			// kube-apiserver's ClusterIP repair loop (pkg/registry/core/service/
			// ipallocator/controller/repairip.go), not a controller: it warns when
			// its periodic scan falls between a Service's IP allocation and its
			// storage, a race of the real server's own; the apiserver model
			// allocates no ClusterIPs.
			continue
		}
		rec := map[string]any{
			"involvedObject": map[string]any{"kind": e.InvolvedObject.Kind, "name": generated(e.InvolvedObject.Name)},
			"type":           e.Type, "reason": e.Reason, "message": generated(e.Message),
			"source": e.Source.Component,
		}
		var b strings.Builder
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(normalise(rec, uids, names)); err != nil {
			panic(err)
		}
		counts[strings.TrimSuffix(b.String(), "\n")] += max(e.Count, 1)
	}
	lines := make([]string, 0, len(counts))
	for l, n := range counts {
		lines = append(lines, fmt.Sprintf("Event %s x%d", l, n))
	}
	return lines
}

// sortEndpoints sorts an EndpointSlice's endpoints by the name of their pod.
func sortEndpoints(rec map[string]any) {
	eps, _ := rec["endpoints"].([]any)
	name := func(e any) string {
		ref, _ := e.(map[string]any)["targetRef"].(map[string]any)
		n, _ := ref["name"].(string)
		return n
	}
	slices.SortStableFunc(eps, func(a, b any) int { return strings.Compare(name(a), name(b)) })
}

// sortConditions sorts status.conditions by type: their order is the order of their
// last changes (SetDeploymentCondition removes and appends), which depends on how
// the controller's syncs fell between the kubelet's writes, as their times do.
func sortConditions(rec map[string]any) {
	cs, ok := nested(rec, []string{"status", "conditions"})
	if !ok {
		return
	}
	list, _ := cs.([]any)
	slices.SortStableFunc(list, func(a, b any) int {
		ta, _ := a.(map[string]any)["type"].(string)
		tb, _ := b.(map[string]any)["type"].(string)
		return strings.Compare(ta, tb)
	})
}

func normalName(o client.Object) string {
	if ref := metav1.GetControllerOf(o); ref != nil && ref.Kind == "StatefulSet" {
		return o.GetName() // "<set>-<ordinal>", with generateName "<set>-" (GetPodFromTemplate)
	}
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(o.GetName(), g) {
		return g + "*"
	}
	return o.GetName()
}

func nested(m map[string]any, path []string) (any, bool) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return nil, false
		}
		if cur, ok = mm[p]; !ok {
			return nil, false
		}
	}
	return cur, true
}

func setNested(m map[string]any, path []string, v any) {
	for _, p := range path[:len(path)-1] {
		next, ok := m[p].(map[string]any)
		if !ok {
			next = map[string]any{}
			m[p] = next
		}
		m = next
	}
	m[path[len(path)-1]] = v
}

// normalise replaces uids, generated names (also inside strings: messages name
// objects) and timestamps in v.
func normalise(v any, uids, names map[string]string) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalise(e, uids, names)
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalise(e, uids, names)
		}
		return out
	case string:
		if u, ok := uids[x]; ok {
			return u
		}
		if _, err := time.Parse(time.RFC3339, x); err == nil {
			return "<time>"
		}
		for _, n := range slices.Sorted(maps.Keys(names)) {
			x = strings.ReplaceAll(x, n, names[n])
		}
		return x
	default:
		return v
	}
}

// WorkloadPodSpec is a pod spec with every default kube-apiserver sets
// (pkg/apis/core/v1/defaults.go), so that both sides store the same template and the
// deployment controller hashes the same thing (pod-template-hash).
func WorkloadPodSpec(image string, restart corev1.RestartPolicy) corev1.PodSpec {
	return corev1.PodSpec{
		Containers: []corev1.Container{{
			Name: "app", Image: image,
			TerminationMessagePath:   corev1.TerminationMessagePathDefault,
			TerminationMessagePolicy: corev1.TerminationMessageReadFile,
			ImagePullPolicy:          corev1.PullIfNotPresent,
		}},
		RestartPolicy:                 restart,
		TerminationGracePeriodSeconds: ptr.To[int64](corev1.DefaultTerminationGracePeriodSeconds),
		DNSPolicy:                     corev1.DNSClusterFirst,
		SecurityContext:               &corev1.PodSecurityContext{},
		SchedulerName:                 corev1.DefaultSchedulerName,
	}
}

// WorkloadDeployment is a Deployment with every default set (pkg/apis/apps/v1/defaults.go).
func WorkloadDeployment(ns, name string, replicas int32, image string) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	pct := intstr.FromString("25%")
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       WorkloadPodSpec(image, corev1.RestartPolicyAlways),
			},
			Strategy: appsv1.DeploymentStrategy{
				Type:          appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: &pct, MaxSurge: &pct},
			},
			RevisionHistoryLimit:    ptr.To[int32](10),
			ProgressDeadlineSeconds: ptr.To[int32](600),
		},
	}
}

// WorkloadJob is a Job with the defaults kube-apiserver sets but the selector and
// its labels (pkg/apis/batch/v1/defaults.go; the selector is generated by the Job
// strategy, pkg/registry/batch/job/strategy.go generateSelector); its pods end as
// outcome says (KubeletAnnotation).
func WorkloadJob(ns, name string, backoffLimit int32, outcome string) *batchv1.Job {
	return &batchv1.Job{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: batchv1.JobSpec{
			Parallelism:          ptr.To[int32](1),
			Completions:          ptr.To[int32](1),
			BackoffLimit:         ptr.To(backoffLimit),
			CompletionMode:       ptr.To(batchv1.NonIndexedCompletion),
			Suspend:              ptr.To(false),
			PodReplacementPolicy: ptr.To(batchv1.TerminatingOrFailed),
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Annotations: map[string]string{KubeletAnnotation: outcome}},
				Spec:       WorkloadPodSpec("busybox:1", corev1.RestartPolicyNever),
			},
		},
	}
}
