package cronjob

import (
	"fmt"
	"slices"
	"strings"
	"time"

	kbatch "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"

	batchv1 "github.com/ctrlsim/ctrlsim/examples/cronjob/api/v1"
	"github.com/ctrlsim/ctrlsim/examples/cronjob/internal/controller"
	"github.com/ctrlsim/ctrlsim/sim/check"
	"github.com/ctrlsim/ctrlsim/sim/cluster"
)

// ScheduledAtAnnotation is the annotation the controller puts on each Job it
// creates: the scheduled time the Job runs for (RFC 3339).
const ScheduledAtAnnotation = controller.ScheduledAtAnnotation

// Violation is one property a run broke.
type Violation struct {
	Property string
	At       time.Duration // where it shows (virtual time since the start)
	Detail   string
}

func (v Violation) String() string {
	return fmt.Sprintf("%s: violated at %s: %s", v.Property, v.At, v.Detail)
}

// Violations is every property of a run that does not hold; nil when all hold.
type Violations []Violation

func (vs Violations) Error() string {
	var b strings.Builder
	for i, v := range vs {
		if i > 0 {
			b.WriteString("; ")
		}
		b.WriteString(v.String())
	}
	return b.String()
}

// Err is vs as an error, nil when empty.
func (vs Violations) Err() error {
	if len(vs) == 0 {
		return nil
	}
	return vs
}

// Has reports whether property is among vs.
func (vs Violations) Has(property string) bool {
	return slices.ContainsFunc(vs, func(v Violation) bool { return v.Property == property })
}

// Judge checks every property of a CronJob user on a driven run (Drive): the
// safety properties over the apiserver's history, the at-rest properties on
// the final state, and the run's health.
func Judge(c *cluster.Cluster) Violations {
	r := c.Observed()
	var out Violations
	out = append(out, ForbidNeverOverlaps(r)...)
	out = append(out, NoScheduledTimeRunTwice(r)...)
	out = append(out, HistoryLimitsHoldAtRest(r)...)
	out = append(out, ActiveMatchesAtRest(r)...)
	out = append(out, Healthy(c)...)
	return out
}

var (
	jobGVK     = kbatch.SchemeGroupVersion.WithKind("Job")
	cronJobGVK = batchv1.GroupVersion.WithKind("CronJob")
)

// owner names the CronJob that controls job: namespace/name, and its UID (a
// CronJob deleted and made again under the same name is another owner), or
// "" when none does.
func owner(job *kbatch.Job) (string, types.UID) {
	ref := metav1.GetControllerOf(job)
	if ref == nil || ref.APIVersion != batchv1.GroupVersion.String() || ref.Kind != "CronJob" {
		return "", ""
	}
	return job.Namespace + "/" + ref.Name, ref.UID
}

// cronJobs are the CronJobs at the end of the run, by namespace/name.
func cronJobs(r *check.Run) map[string]*batchv1.CronJob {
	out := map[string]*batchv1.CronJob{}
	for _, o := range r.Objects(cronJobGVK) {
		cj := o.(*batchv1.CronJob)
		out[cj.Namespace+"/"+cj.Name] = cj
	}
	return out
}

// ownedBy reports whether job is controlled by cj (its name and UID).
func ownedBy(job *kbatch.Job, key string, cj *batchv1.CronJob) bool {
	name, uid := owner(job)
	return name == key && uid == cj.UID
}

func jobs(r *check.Run, gvk schema.GroupVersionKind) []*kbatch.Job {
	var out []*kbatch.Job
	for _, o := range r.Objects(gvk) {
		out = append(out, o.(*kbatch.Job))
	}
	return out
}

// ForbidNeverOverlaps: a CronJob whose concurrencyPolicy is Forbid never has
// two unfinished Jobs at once. Judged on the apiserver's history (the watch
// log, in commit order): a Job of such a CronJob is created while an earlier
// one has neither finished (Complete or Failed) nor been deleted, and the
// policy was Forbid throughout, from the earlier Job's creation to the new
// one's (the CronJob's versions in the log, not its final spec: a user may
// change the policy during the run, and the operator reads it before it
// creates, so a Job made just after a change to Forbid, or while a Job made
// under Allow runs, is no overlap the policy forbade).
func ForbidNeverOverlaps(r *check.Run) Violations {
	type state struct {
		forbidSince time.Time // when the policy last became Forbid; zero: it is not Forbid
		running     map[types.UID]*kbatch.Job
		created     map[types.UID]time.Time // when each running Job was created (its log instant)
	}
	owners := map[types.UID]*state{}
	of := func(uid types.UID) *state {
		s := owners[uid]
		if s == nil {
			s = &state{running: map[types.UID]*kbatch.Job{}, created: map[types.UID]time.Time{}}
			owners[uid] = s
		}
		return s
	}
	var out Violations
	for _, ev := range r.Log {
		switch ev.GVK {
		case cronJobGVK:
			cj := ev.Object.(*batchv1.CronJob)
			s := of(cj.UID)
			switch forbid := ev.Type != watch.Deleted && cj.Spec.ConcurrencyPolicy == batchv1.ForbidConcurrent; {
			case forbid && s.forbidSince.IsZero():
				s.forbidSince = ev.At
			case !forbid:
				s.forbidSince = time.Time{}
			}
			continue
		case jobGVK:
		default:
			continue
		}
		job := ev.Object.(*kbatch.Job)
		own, uid := owner(job)
		if own == "" {
			continue
		}
		s := of(uid)
		switch {
		case ev.Type == watch.Added && !JobFinished(job):
			for _, other := range sortedJobs(s.running) {
				if s.forbidSince.IsZero() || s.forbidSince.After(s.created[other.UID]) {
					continue // not Forbid throughout since the earlier Job was made
				}
				out = append(out, Violation{Property: "forbid-never-overlaps", At: ev.At.Sub(r.Start), Detail: fmt.Sprintf(
					"CronJob %s has concurrencyPolicy Forbid, yet Job %s (scheduled at %s) was created while Job %s (scheduled at %s, created at %s) was still running",
					own, job.Name, job.Annotations[ScheduledAtAnnotation], other.Name, other.Annotations[ScheduledAtAnnotation], other.CreationTimestamp.Sub(r.Start))})
			}
			s.running[job.UID], s.created[job.UID] = job, ev.At
		case ev.Type == watch.Deleted || JobFinished(job):
			delete(s.running, job.UID)
			delete(s.created, job.UID)
		}
	}
	return out
}

func sortedJobs(m map[types.UID]*kbatch.Job) []*kbatch.Job {
	var out []*kbatch.Job
	for _, j := range m { // order fixed by the sort below
		out = append(out, j)
	}
	slices.SortFunc(out, func(a, b *kbatch.Job) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// NoScheduledTimeRunTwice: no scheduled time of a CronJob is run by two Jobs.
// Judged on the apiserver's history: two Jobs created (different UIDs, even if
// the first was deleted before the second) with the same owner (by UID: a
// CronJob deleted and made again is another, which runs its own schedule)
// and the same scheduled-at annotation. One violation per scheduled time, at its second run.
func NoScheduledTimeRunTwice(r *check.Run) Violations {
	type runs struct {
		key         string
		names       []string
		first, next time.Duration
	}
	var order []*runs
	seen := map[string]*runs{}
	for _, ev := range r.Log {
		if ev.GVK != jobGVK || ev.Type != watch.Added {
			continue
		}
		job := ev.Object.(*kbatch.Job)
		at := job.Annotations[ScheduledAtAnnotation]
		own, uid := owner(job)
		if at == "" || own == "" {
			continue
		}
		key := "CronJob " + own + " (uid " + string(uid) + ") scheduled time " + at
		rs := seen[key]
		if rs == nil {
			rs = &runs{key: key, first: ev.At.Sub(r.Start)}
			seen[key] = rs
			order = append(order, rs)
		} else if len(rs.names) == 1 {
			rs.next = ev.At.Sub(r.Start)
		}
		rs.names = append(rs.names, job.Name)
	}
	var out Violations
	for _, rs := range order {
		if len(rs.names) > 1 {
			out = append(out, Violation{Property: "no-scheduled-time-run-twice", At: rs.next, Detail: fmt.Sprintf(
				"%s was run by %d Jobs (%s), first created at %s, again at %s",
				rs.key, len(rs.names), strings.Join(rs.names, ", "), rs.first, rs.next)})
		}
	}
	return out
}

// HistoryLimitsHoldAtRest: at the end of a run, a CronJob keeps at most
// successfulJobsHistoryLimit succeeded and failedJobsHistoryLimit failed Jobs.
func HistoryLimitsHoldAtRest(r *check.Run) Violations {
	cjs := cronJobs(r)
	succeeded, failed := map[string]int{}, map[string]int{}
	for _, job := range jobs(r, jobGVK) {
		own, _ := owner(job)
		if cj := cjs[own]; cj == nil || !ownedBy(job, own, cj) {
			continue
		}
		for _, c := range job.Status.Conditions {
			if c.Status != "True" {
				continue
			}
			switch c.Type {
			case kbatch.JobComplete:
				succeeded[own]++
			case kbatch.JobFailed:
				failed[own]++
			}
		}
	}
	var out Violations
	for _, key := range sortedKeys(cjs) {
		cj := cjs[key]
		check := func(kind string, n int, limit *int32) {
			if limit != nil && n > int(*limit) {
				out = append(out, Violation{Property: "history-limits-hold-at-rest", At: r.End, Detail: fmt.Sprintf(
					"CronJob %s keeps %d %s Jobs at rest, its limit is %d", key, n, kind, *limit)})
			}
		}
		check("succeeded", succeeded[key], cj.Spec.SuccessfulJobsHistoryLimit)
		check("failed", failed[key], cj.Spec.FailedJobsHistoryLimit)
	}
	return out
}

// ActiveMatchesAtRest: at the end of a run, a CronJob's status.active lists
// exactly its unfinished Jobs (by UID).
func ActiveMatchesAtRest(r *check.Run) Violations {
	cjs := cronJobs(r)
	running := map[string][]string{}
	for _, job := range jobs(r, jobGVK) {
		if own, _ := owner(job); own != "" && cjs[own] != nil && ownedBy(job, own, cjs[own]) && !JobFinished(job) {
			running[own] = append(running[own], job.Name+"("+string(job.UID)+")")
		}
	}
	var out Violations
	for _, key := range sortedKeys(cjs) {
		var listed []string
		for _, ref := range cjs[key].Status.Active {
			listed = append(listed, ref.Name+"("+string(ref.UID)+")")
		}
		slices.Sort(listed)
		slices.Sort(running[key])
		if !slices.Equal(listed, running[key]) {
			out = append(out, Violation{Property: "active-matches-at-rest", At: r.End, Detail: fmt.Sprintf(
				"CronJob %s lists status.active %v at rest, its unfinished Jobs are %v", key, listed, running[key])})
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m { // order fixed by the sort below
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}

// Healthy: the run was not stopped by a hot loop (a storm of reconciles or
// writes on one object) or a livelock, and no reconcile panicked.
func Healthy(c *cluster.Cluster) Violations {
	var out Violations
	if h := c.HotLoop(); h != nil {
		out = append(out, Violation{Property: "no-hot-loop", At: h.At, Detail: h.String()})
	}
	if l := c.Livelock(); l != nil {
		out = append(out, Violation{Property: "no-livelock", At: c.Now(), Detail: l.String()})
	}
	for _, f := range c.Findings() {
		out = append(out, Violation{Property: "no-reconcile-panic", At: f.At, Detail: f.String()})
	}
	return out
}

// JobFinished reports whether job has a true Complete or Failed condition
// (the job controller's IsJobFinished).
func JobFinished(job *kbatch.Job) bool {
	for _, c := range job.Status.Conditions {
		if (c.Type == kbatch.JobComplete || c.Type == kbatch.JobFailed) && c.Status == corev1.ConditionTrue {
			return true
		}
	}
	return false
}
