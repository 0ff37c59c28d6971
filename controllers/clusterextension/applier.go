package clusterextension

import (
	"context"
	"errors"
	"fmt"
	"time"

	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
)

// Release states of getReleaseState (applier/helm.go).
const (
	stateNeedsInstall = "NeedsInstall"
	stateNeedsUpgrade = "NeedsUpgrade"
	stateUnchanged    = "Unchanged"
	stateError        = "Error"
)

// errPendingRelease is #1987's marker for a pending last revision.
var errPendingRelease = errors.New("release is in a pending state")

// apply is the helm applier's Apply: find the release state with a dry run,
// then install, upgrade, or re-apply the unchanged release's objects.
func (r *Reconciler) apply(ctx context.Context, ac *helm.ActionClient, ext *ClusterExtension, chart *helm.Chart, storeLabels map[string]string) error {
	rel, state, err := r.releaseState(ctx, ac, ext, chart)
	// #1987: "if a release is pending, that means that a helm action
	// (installation/upgrade) we were attempting was likely interrupted in-flight
	// ... try and remove helm metadata relating to that pending release".
	if errors.Is(err, errPendingRelease) {
		if _, err := ac.Helm.Releases.Delete(ctx, rel.Name, rel.Version); err != nil {
			return fmt.Errorf("failed removing pending release %q version %d metadata: %w", rel.Name, rel.Version, err)
		}
		// "return an error to try to detect proper state (installation/upgrade) at next reconciliation"
		return fmt.Errorf("removed pending release %q version %d metadata", rel.Name, rel.Version)
	}
	if err != nil {
		return fmt.Errorf("failed to get release state using server-side dry-run: %w", err)
	}
	switch state {
	case stateNeedsInstall:
		_, err = ac.Install(ctx, ext.Name, chart, helm.InstallOptions{Labels: storeLabels})
	case stateNeedsUpgrade:
		_, err = ac.Upgrade(ctx, ext.Name, chart, helm.UpgradeOptions{Labels: storeLabels})
	case stateUnchanged:
		err = ac.Reconcile(ctx, rel)
	}
	return err
}

// releaseState is getReleaseState: no release -> dry-run install, NeedsInstall;
// otherwise a dry-run upgrade, NeedsUpgrade when the manifest differs or the
// last revision is failed or superseded. Buggy and Robust reach the dry-run
// upgrade with a pending last revision, which fails with errPending; Fixed
// returns errPendingRelease first.
func (r *Reconciler) releaseState(ctx context.Context, ac *helm.ActionClient, ext *ClusterExtension, chart *helm.Chart) (*helm.Release, string, error) {
	current, err := ac.Get(ctx, ext.Name)
	if errors.Is(err, helm.ErrReleaseNotFound) {
		if _, err := ac.Install(ctx, ext.Name, chart, helm.InstallOptions{DryRun: true}); err != nil {
			return nil, stateError, err
		}
		return nil, stateNeedsInstall, nil
	}
	if err != nil {
		return nil, stateError, err
	}
	if r.Variant == variant.Fixed && current.Info.Status.IsPending() {
		return current, stateError, errPendingRelease
	}
	desired, err := ac.Upgrade(ctx, ext.Name, chart, helm.UpgradeOptions{DryRun: true})
	if err != nil {
		return current, stateError, err
	}
	if desired.Manifest != current.Manifest || current.Info.Status == helm.StatusFailed || current.Info.Status == helm.StatusSuperseded {
		return current, stateNeedsUpgrade, nil
	}
	return current, stateUnchanged, nil
}

// resume is the Robust variant's first step. The newest record names the
// operation in flight: when it is pending (interrupted: left by a process that
// is gone) it is first marked failed, as helm itself does when an operation
// fails in-process, instead of being deleted, so the deployed record stays. When
// the newest record is failed and names another bundle than the installed one,
// that bundle is in flight: it is completed from the record's own manifest,
// before anything newer is resolved, unless the spec no longer admits it. It
// returns the bundle now installed when it resumed one.
func (r *Reconciler) resume(ctx context.Context, ac *helm.ActionClient, ext *ClusterExtension, history []*helm.Release, installed *installedBundle) (ctrl.Result, *installedBundle, error) {
	if len(history) == 0 {
		return ctrl.Result{}, nil, nil
	}
	last := history[0]
	switch {
	case last.Info.Status.IsPending():
		if wait := r.stillLive(last); wait > 0 {
			r.setProgressing(ext, fmt.Errorf("%w: release %q version %d is %s since %s; taking it over in %s",
				helm.ErrPending, last.Name, last.Version, last.Info.Status, last.Created.UTC().Format(time.RFC3339), wait))
			return ctrl.Result{RequeueAfter: wait}, nil, nil
		}
		last.Info.Status = helm.StatusFailed
		last.Info.Description = "Interrupted: the operation's process is gone"
		if err := ac.Helm.Releases.Update(ctx, last); err != nil {
			r.setProgressing(ext, fmt.Errorf("failed marking interrupted release %q version %d failed: %w", last.Name, last.Version, err))
			return ctrl.Result{}, nil, err
		}
	case last.Info.Status != helm.StatusFailed:
		return ctrl.Result{}, nil, nil
	}
	inflight := bundleOf(last)
	if installed != nil && installed.Version == inflight.Version {
		return ctrl.Result{}, nil, nil
	}
	req := catalogRequest(ext)
	inRange, err := catalog.ParseRange(req.VersionRange)
	if err != nil || last.Labels[PackageNameLabel] != req.Package || !inRange(inflight.Version) {
		return ctrl.Result{}, nil, nil // the user asked for something else: resolve anew
	}
	chart, err := helm.ChartOf(last, r.Client.Scheme())
	if err == nil {
		_, err = ac.Upgrade(ctx, ext.Name, chart, helm.UpgradeOptions{Labels: last.Labels})
	}
	if err != nil {
		r.setProgressing(ext, wrapErrorWithResolutionInfo(inflight.BundleMetadata, fmt.Errorf("resuming interrupted release: %w", err)))
		if installed != nil {
			r.setInstalledFromBundle(ext, installed)
		} // else keep status.install: nothing verified is installed, nothing is known to be gone
		return ctrl.Result{}, nil, err
	}
	r.setInstalledFromBundle(ext, inflight)
	return ctrl.Result{}, inflight, nil
}

// stillLive is how long to wait before a pending record counts as interrupted:
// 0 when it was written before this process started (its writer is a dead
// incarnation), else what remains of PendingTimeout since it was written.
func (r *Reconciler) stillLive(rel *helm.Release) time.Duration {
	if r.Started.IsZero() || rel.Created.Before(r.Started.Truncate(time.Second)) {
		return 0
	}
	timeout := r.PendingTimeout
	if timeout == 0 {
		timeout = DefaultPendingTimeout
	}
	return max(0, timeout-r.Clock.Since(rel.Created))
}
