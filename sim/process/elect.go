package process

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	rl "k8s.io/client-go/tools/leaderelection/resourcelock"

	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// LeaderElection turns on leader election for a process's manager, as
// manager.Options.LeaderElection does: the manager's controllers, and the
// Runnables that need leader election, start only once this incarnation holds
// the Lease; losing it ends the process ("leader election lost"), and the pod
// restarts it.
type LeaderElection struct {
	// Namespace and Name are the Lease's: LeaderElectionNamespace and
	// LeaderElectionID.
	Namespace, Name string
	// LeaseDuration, RenewDeadline and RetryPeriod default to
	// controller-runtime's 15s, 10s and 2s (pkg/manager/internal.go).
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
}

// jitterFactor is client-go's leaderelection.JitterFactor: a candidate retries
// after RetryPeriod plus up to 1.2 RetryPeriods.
const jitterFactor = 1.2

func (le LeaderElection) withDefaults() LeaderElection {
	if le.LeaseDuration == 0 {
		le.LeaseDuration = 15 * time.Second
	}
	if le.RenewDeadline == 0 {
		le.RenewDeadline = 10 * time.Second
	}
	if le.RetryPeriod == 0 {
		le.RetryPeriod = 2 * time.Second
	}
	return le
}

// elector is one incarnation's leaderelection.LeaderElector with its
// resourcelock.LeaseLock (k8s.io/client-go v0.37.2 tools/leaderelection
// leaderelection.go and resourcelock/leaselock.go), whose Lease calls go
// through the process's client: they are traced, take virtual time and meet
// the plan's faults like any other call.
//
// client-go's own elector cannot run here: its acquire loop jitters with the
// global math/rand (wait.Jitter), and its loops sleep on timers of their own.
// This is its algorithm, step for step, on the scheduler: tryAcquireOrRenew
// is upstream's, the lock's Get, Create and Update are LeaseLock's, and the
// loops keep wait's timing (acquire: JitterUntil, sliding, jitter 1.2 drawn
// from the plan's seed; renew: Until RetryPeriod around a PollUntilContextTimeout
// whose attempts start RetryPeriod apart and stop at RenewDeadline).
type elector struct {
	p   *Process
	cfg LeaderElection
	id  string // the lock's Identity: hostname_uuid upstream; process_incarnation here

	lease        *coordinationv1.Lease // LeaseLock.lease: the last Lease read or written
	observed     rl.LeaderElectionRecord
	observedRaw  []byte
	observedTime time.Time
}

// elect runs the incarnation's leader election: acquire, then start the
// controllers waiting for it, then renew until the renewal fails for
// RenewDeadline, and then exit.
func (p *Process) elect(cfg LeaderElection, m *Manager) {
	le := &elector{p: p, cfg: cfg, id: fmt.Sprintf("%s_%d", p.spec.Name, p.incarnation)}
	s := p.env.Scheduler
	ctx := m.ctx
	le.log("attempting to acquire leader lease " + le.describe() + "...")
	for !le.tryAcquireOrRenew(ctx) {
		jitter := time.Duration(p.env.Faults.Jitter(p.spec.Name) * jitterFactor * float64(cfg.RetryPeriod))
		s.Sleep(cfg.RetryPeriod + jitter)
		s.CheckAlive()
	}
	le.event("became leader")
	le.log("successfully acquired lease " + le.describe())
	if err := m.becomeLeader(); err != nil {
		p.record(trace.Step{Op: "setup", Result: "error: " + err.Error()})
		p.Exit(1)
		return
	}
	for {
		// One PollUntilContextTimeout: an attempt at once, then one every
		// RetryPeriod from the previous attempt's start, none at or after the
		// deadline.
		start := p.env.Clock.Now()
		deadline := start.Add(cfg.RenewDeadline)
		renewed := false
		for next := start; ; {
			if le.tryAcquireOrRenew(ctx) {
				renewed = true
				break
			}
			next = next.Add(cfg.RetryPeriod)
			if !next.Before(deadline) {
				break
			}
			if d := next.Sub(p.env.Clock.Now()); d > 0 {
				s.Sleep(d)
			} else {
				s.Yield()
			}
			s.CheckAlive()
		}
		if !renewed {
			if d := deadline.Sub(p.env.Clock.Now()); d > 0 {
				s.Sleep(d)
				s.CheckAlive()
			}
			le.log("failed to renew lease " + le.describe() + ": timed out waiting for the condition")
			le.event("stopped leading")
			le.log("leader election lost")
			p.Exit(1) // mgr.Start returns "leader election lost"; main exits
			return
		}
		s.Sleep(cfg.RetryPeriod) // wait.Until, sliding
		s.CheckAlive()
	}
}

func (le *elector) describe() string { return le.cfg.Namespace + "/" + le.cfg.Name }

func (le *elector) log(msg string) {
	le.p.record(trace.Step{Op: "log", Object: "leader-election", Result: msg})
}

// event is LeaseLock.RecordEvent: a Normal LeaderElection Event on the Lease,
// from the recorder controller-runtime names after the identity.
func (le *elector) event(what string) {
	if le.lease == nil {
		return
	}
	subject := &coordinationv1.Lease{ObjectMeta: le.lease.ObjectMeta}
	subject.Kind = "Lease"
	subject.APIVersion = coordinationv1.SchemeGroupVersion.String()
	le.p.GetEventRecorderFor(le.id).Eventf(subject, corev1.EventTypeNormal, "LeaderElection", "%s", le.id+" "+what)
}

func (le *elector) isLeader() bool { return le.observed.HolderIdentity == le.id }

func (le *elector) isLeaseValid(now time.Time) bool {
	return le.observedTime.Add(time.Second * time.Duration(le.observed.LeaseDurationSeconds)).After(now)
}

func (le *elector) setObserved(r rl.LeaderElectionRecord) {
	le.observed = r
	le.observedTime = le.p.env.Clock.Now()
}

// tryAcquireOrRenew is client-go's, line for line (leaderelection.go).
func (le *elector) tryAcquireOrRenew(ctx context.Context) bool {
	now := metav1.NewTime(le.p.env.Clock.Now())
	record := rl.LeaderElectionRecord{
		HolderIdentity:       le.id,
		LeaseDurationSeconds: int(le.cfg.LeaseDuration / time.Second),
		RenewTime:            now,
		AcquireTime:          now,
	}
	// 1. fast path for the leader to update optimistically assuming that the
	// record observed last time is the current version.
	if le.isLeader() && le.isLeaseValid(now.Time) {
		record.AcquireTime = le.observed.AcquireTime
		record.LeaderTransitions = le.observed.LeaderTransitions
		if err := le.update(ctx, record); err == nil {
			le.setObserved(record)
			return true
		}
	}
	// 2. obtain or create the ElectionRecord
	old, oldRaw, err := le.get(ctx)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			return false
		}
		if err := le.create(ctx, record); err != nil {
			return false
		}
		le.setObserved(record)
		return true
	}
	// 3. Record obtained, check the Identity & Time
	if !bytes.Equal(le.observedRaw, oldRaw) {
		le.setObserved(*old)
		le.observedRaw = oldRaw
	}
	if len(old.HolderIdentity) > 0 && le.isLeaseValid(now.Time) && !le.isLeader() {
		return false
	}
	// 4. We're going to try to update.
	if le.isLeader() {
		record.AcquireTime = old.AcquireTime
		record.LeaderTransitions = old.LeaderTransitions
	} else {
		record.LeaderTransitions = old.LeaderTransitions + 1
	}
	if err := le.update(ctx, record); err != nil {
		return false
	}
	le.setObserved(record)
	return true
}

// get is LeaseLock.Get: a live read (the lock's clientset has no cache).
func (le *elector) get(ctx context.Context) (*rl.LeaderElectionRecord, []byte, error) {
	lease := &coordinationv1.Lease{}
	if err := le.p.client.APIReader().Get(ctx, types.NamespacedName{Namespace: le.cfg.Namespace, Name: le.cfg.Name}, lease); err != nil {
		return nil, nil, err
	}
	le.lease = lease
	record := rl.LeaseSpecToLeaderElectionRecord(&lease.Spec)
	raw, err := json.Marshal(*record)
	if err != nil {
		return nil, nil, err
	}
	return record, raw, nil
}

// create is LeaseLock.Create.
func (le *elector) create(ctx context.Context, r rl.LeaderElectionRecord) error {
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Name: le.cfg.Name, Namespace: le.cfg.Namespace},
		Spec:       rl.LeaderElectionRecordToLeaseSpec(&r),
	}
	if err := le.p.client.Create(ctx, lease); err != nil {
		// The typed clientset returns an empty object beside an error.
		le.lease = &coordinationv1.Lease{}
		return err
	}
	le.lease = lease
	return nil
}

// update is LeaseLock.Update: the last Lease seen, with the new spec, so that
// a Lease changed since fails with a conflict.
func (le *elector) update(ctx context.Context, r rl.LeaderElectionRecord) error {
	if le.lease == nil {
		return fmt.Errorf("lease not initialized, call get or create first")
	}
	le.lease.Spec = rl.LeaderElectionRecordToLeaseSpec(&r)
	next := le.lease.DeepCopy()
	if err := le.p.client.Update(ctx, next); err != nil {
		return err
	}
	le.lease = next
	return nil
}
