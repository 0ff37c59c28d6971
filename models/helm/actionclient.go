package helm

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ActionClient is helm-operator-plugins' actionClient (pkg/client/actionclient.go)
// over the actions: what operators call instead of helm directly.
type ActionClient struct {
	Helm *Helm
	// FailureRollbacks uninstalls after a failed install and rolls back after a
	// failed upgrade, whenever the failed action had recorded its release. It is
	// helm-operator-plugins' default (NewActionClient sets it);
	// operator-controller turns it off (WithFailureRollbacks(false)).
	FailureRollbacks bool
	// InstallFailureUninstall are the options of that uninstall
	// (AppendInstallFailureUninstallOptions); KeepHistory is always false.
	InstallFailureUninstall UninstallOptions
	// UpgradeFailureRollback are the options of that rollback
	// (AppendUpgradeFailureRollbackOptions); Force is always true.
	UpgradeFailureRollback RollbackOptions
}

// NewActionClient is an action client with helm-operator-plugins' defaults:
// failure rollbacks on, no waits.
func NewActionClient(h *Helm) *ActionClient {
	return &ActionClient{Helm: h, FailureRollbacks: true}
}

// Get is Helm.Get.
func (c *ActionClient) Get(ctx context.Context, name string) (*Release, error) {
	return c.Helm.Get(ctx, name)
}

// History is every revision, newest first (helm-operator-plugins #424 sorts
// with releaseutil.Reverse(rels, SortByRevision)): one list.
func (c *ActionClient) History(ctx context.Context, name string) ([]*Release, error) {
	rels, err := c.Helm.History(ctx, name)
	slices.Reverse(rels)
	return rels, err
}

// Install runs Helm.Install; when it fails after recording the release and
// FailureRollbacks is on, it uninstalls, and a failed uninstall (other than a
// release that is not there) wraps both errors: "uninstall failed: %v: original
// install error: %w".
func (c *ActionClient) Install(ctx context.Context, name string, chart *Chart, opts InstallOptions) (*Release, error) {
	rel, err := c.Helm.Install(ctx, name, chart, opts)
	if err == nil {
		return rel, nil
	}
	if rel != nil && c.FailureRollbacks {
		u := c.InstallFailureUninstall
		u.KeepHistory = false
		if _, uerr := c.Helm.Uninstall(ctx, name, u); uerr != nil && !errors.Is(uerr, ErrReleaseNotFound) {
			return nil, fmt.Errorf("uninstall failed: %v: original install error: %w", uerr, err)
		}
	}
	return nil, err
}

// Upgrade runs Helm.Upgrade; when it fails after recording the new revision and
// FailureRollbacks is on, it rolls back (Force), and a failed rollback wraps
// both errors: "rollback failed: %v: original upgrade error: %w".
func (c *ActionClient) Upgrade(ctx context.Context, name string, chart *Chart, opts UpgradeOptions) (*Release, error) {
	rel, err := c.Helm.Upgrade(ctx, name, chart, opts)
	if err == nil {
		return rel, nil
	}
	if rel != nil && c.FailureRollbacks {
		r := c.UpgradeFailureRollback
		r.Force = true
		if rerr := c.Helm.Rollback(ctx, name, r); rerr != nil {
			return nil, fmt.Errorf("rollback failed: %v: original upgrade error: %w", rerr, err)
		}
	}
	return nil, err
}

// Rollback is Helm.Rollback.
func (c *ActionClient) Rollback(ctx context.Context, name string, opts RollbackOptions) error {
	return c.Helm.Rollback(ctx, name, opts)
}

// Uninstall is Helm.Uninstall.
func (c *ActionClient) Uninstall(ctx context.Context, name string, opts UninstallOptions) (*Release, error) {
	return c.Helm.Uninstall(ctx, name, opts)
}

// Reconcile re-applies a release's objects as they are in its manifest
// (actionClient.Reconcile): for each, a get, then a create when it is missing
// ("create error: %w") or a merge patch when it differs ("patch error: %w").
// As upstream, it does not add helm's ownership metadata.
func (c *ActionClient) Reconcile(ctx context.Context, rel *Release) error {
	h := c.Helm
	resources, err := h.build(rel.Manifest)
	if err != nil {
		return err
	}
	for _, r := range resources {
		live, err := r.empty(h.cfg.Client.Scheme())
		if err != nil {
			return err
		}
		if err := h.cfg.Reader.Get(ctx, r.key(), live); err != nil {
			if !apierrors.IsNotFound(err) {
				return fmt.Errorf("could not get object: %w", err)
			}
			if err := h.cfg.Client.Create(ctx, r.obj.DeepCopyObject().(client.Object)); err != nil {
				return fmt.Errorf("create error: %w", err)
			}
			continue
		}
		if err := h.patch(ctx, live, r.obj); err != nil {
			return fmt.Errorf("patch error: %w", err)
		}
	}
	return nil
}
