package helm

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ErrPending is what Upgrade returns when the last revision is pending
// (action.go errPending): another operation has recorded a revision and not yet
// its outcome, or was interrupted before it could.
var ErrPending = errors.New(errAnotherOperationInProcess)

// Config is what the actions run with (helm's action.Configuration).
type Config struct {
	// Client writes records and objects; its Scheme and RESTMapper type them.
	Client client.Client
	// Reader reads records and objects. Helm reads the API server, not an
	// informer cache: in a manager pass mgr.GetAPIReader(). Nil means Client.
	Reader client.Reader
	// Clock stamps records and paces waits (Sleep).
	Clock clock.Clock
	// Namespace is the release namespace: records live there, namespaced objects
	// default to it, and it is the release-namespace ownership annotation.
	Namespace string
}

// Helm runs helm's actions for one release namespace.
type Helm struct {
	// Releases is the release storage (action.Configuration.Releases).
	Releases *Storage
	cfg      Config
}

// New returns the actions of cfg.
func New(cfg Config) *Helm {
	if cfg.Reader == nil {
		cfg.Reader = cfg.Client
	}
	return &Helm{cfg: cfg, Releases: &Storage{client: cfg.Client, reader: cfg.Reader, namespace: cfg.Namespace, clock: cfg.Clock}}
}

// Get is the last revision of a release, whatever its status (action.Get with
// version 0, storage Last): one list. No revision is ErrReleaseNotFound.
func (h *Helm) Get(ctx context.Context, name string) (*Release, error) {
	return h.Releases.Last(ctx, name)
}

// History is every revision, oldest first: one list.
func (h *Helm) History(ctx context.Context, name string) ([]*Release, error) {
	return h.Releases.History(ctx, name)
}

// InstallOptions are the fields of action.Install this model uses.
type InstallOptions struct {
	// DryRun renders, builds and checks conflicts, and writes nothing.
	DryRun bool
	// Labels are custom storage labels on the release record.
	Labels map[string]string
}

// Install installs chart as revision 1 of release name (action.Install.Run).
// On a failure after the record was created it returns the failed release with
// the error.
func (h *Helm) Install(ctx context.Context, name string, chart *Chart, opts InstallOptions) (*Release, error) {
	if !opts.DryRun {
		if err := h.availableName(ctx, name); err != nil {
			return nil, err
		}
	}
	manifest, err := h.render(chart)
	if err != nil {
		return nil, err
	}
	now := h.cfg.Clock.Now()
	rel := &Release{
		Name: name, Namespace: h.cfg.Namespace, Version: 1,
		Chart:    ChartMetadata{Name: chart.Name, Version: chart.Version},
		Manifest: manifest, Labels: maps.Clone(opts.Labels),
		Info: Info{FirstDeployed: now, LastDeployed: now, Status: StatusPendingInstall, Description: "Initial install underway"},
	}
	resources, err := h.build(manifest)
	if err != nil {
		return nil, fmt.Errorf("unable to build kubernetes objects from release manifest: %w", err)
	}
	adopt, err := h.existingResourceConflict(ctx, resources, name)
	if err != nil {
		return nil, fmt.Errorf("Unable to continue with install: %w", err) //nolint:staticcheck // helm's text
	}
	if opts.DryRun {
		rel.Info.Description = "Dry run complete"
		return rel, nil
	}
	if err := h.Releases.Create(ctx, rel); err != nil {
		return rel, err
	}
	if len(adopt) == 0 {
		err = h.create(ctx, name, resources)
	} else {
		err = h.update(ctx, name, adopt, resources)
	}
	if err != nil {
		rel.Info.Status, rel.Info.Description = StatusFailed, fmt.Sprintf("Release %q failed: %s", name, err)
		_ = h.Releases.Update(ctx, rel) // helm ignores it: there is another error to report
		return rel, err
	}
	rel.Info.Status, rel.Info.Description = StatusDeployed, "Install complete"
	_ = h.Releases.Update(ctx, rel) // helm logs "failed to record the release" and reports success
	return rel, nil
}

// availableName refuses a name with any revision (install.go availableName
// without Replace): one list.
func (h *Helm) availableName(ctx context.Context, name string) error {
	if hist, err := h.Releases.History(ctx, name); err != nil || len(hist) == 0 {
		return nil
	}
	return errors.New("cannot re-use a name that is still in use")
}

// UpgradeOptions are the fields of action.Upgrade this model uses.
type UpgradeOptions struct {
	// DryRun prepares the upgrade and checks conflicts, and writes nothing.
	DryRun bool
	// Labels are custom storage labels, laid over the last revision's.
	Labels map[string]string
}

// Upgrade upgrades release name to chart as a new revision (action.Upgrade.Run:
// prepareUpgrade, performUpgrade, releasingUpgrade). On a failure after the new
// record was created it returns the failed release with the error.
func (h *Helm) Upgrade(ctx context.Context, name string, chart *Chart, opts UpgradeOptions) (*Release, error) {
	last, err := h.Releases.Last(ctx, name)
	if err != nil {
		if errors.Is(err, ErrReleaseNotFound) {
			return nil, errNoDeployedReleases(name)
		}
		return nil, err
	}
	// "Concurrent `helm upgrade`s will either fail here with `errPending` or when
	// creating the release with "already exists". This should act as a
	// pessimistic lock." It comes before the dry-run branch: dry runs fail too.
	if last.Info.Status.IsPending() {
		return nil, ErrPending
	}
	current := last
	if last.Info.Status != StatusDeployed {
		dep, err := h.Releases.Deployed(ctx, name)
		switch {
		case err == nil:
			current = dep
		case errors.Is(err, ErrNoDeployedReleases) && (last.Info.Status == StatusFailed || last.Info.Status == StatusSuperseded):
		default:
			return nil, err
		}
	}
	manifest, err := h.render(chart)
	if err != nil {
		return nil, err
	}
	labels := maps.Clone(last.Labels)
	if labels == nil && len(opts.Labels) > 0 {
		labels = map[string]string{}
	}
	maps.Copy(labels, opts.Labels)
	upgraded := &Release{
		Name: name, Namespace: current.Namespace, Version: last.Version + 1,
		Chart:    ChartMetadata{Name: chart.Name, Version: chart.Version},
		Manifest: manifest, Labels: labels,
		Info: Info{FirstDeployed: current.Info.FirstDeployed, LastDeployed: h.cfg.Clock.Now(),
			Status: StatusPendingUpgrade, Description: "Preparing upgrade"},
	}
	currentRes, err := h.build(current.Manifest)
	if err != nil {
		return upgraded, fmt.Errorf("unable to build kubernetes objects from current release manifest: %w", err)
	}
	target, err := h.build(manifest)
	if err != nil {
		return upgraded, fmt.Errorf("unable to build kubernetes objects from new release manifest: %w", err)
	}
	var toBeCreated []resource
	for _, r := range target {
		if !slices.ContainsFunc(currentRes, func(c resource) bool { return c.gvk == r.gvk && c.same(r) }) {
			toBeCreated = append(toBeCreated, r)
		}
	}
	adopt, err := h.existingResourceConflict(ctx, toBeCreated, name)
	if err != nil {
		return nil, fmt.Errorf("Unable to continue with update: %w", err) //nolint:staticcheck // helm's text
	}
	currentRes = append(currentRes, adopt...)
	if opts.DryRun {
		upgraded.Info.Description = "Dry run complete"
		return upgraded, nil
	}
	if err := h.Releases.Create(ctx, upgraded); err != nil {
		return nil, err
	}
	if err := h.update(ctx, name, currentRes, target); err != nil {
		_ = h.Releases.Update(ctx, current) // releasingUpgrade: recordRelease(originalRelease)
		upgraded.Info.Status, upgraded.Info.Description = StatusFailed, fmt.Sprintf("Upgrade %q failed: %s", name, err)
		_ = h.Releases.Update(ctx, upgraded) // failRelease
		return upgraded, err
	}
	current.Info.Status = StatusSuperseded
	_ = h.Releases.Update(ctx, current) // recordRelease logs and ignores errors
	upgraded.Info.Status, upgraded.Info.Description = StatusDeployed, "Upgrade complete"
	if err := h.Releases.Update(ctx, upgraded); err != nil {
		return upgraded, err
	}
	return upgraded, nil
}

// RollbackOptions are the fields of action.Rollback this model uses.
type RollbackOptions struct {
	// Version is the revision to roll back to; 0 is the one before the last.
	Version int
	// Wait waits, after applying, until the target's objects are ready (they
	// exist and are not being deleted), for at most Timeout.
	Wait    bool
	Timeout time.Duration
	// Force is accepted for fidelity to the action client and changes nothing:
	// updates here are always merge patches.
	Force bool
}

// Rollback rolls release name back to an earlier revision as a new revision
// (action.Rollback.Run). Helm v3.17.3's Rollback does not check for a pending
// last revision.
func (h *Helm) Rollback(ctx context.Context, name string, opts RollbackOptions) error {
	if opts.Version < 0 {
		return errors.New("invalid release revision number")
	}
	current, err := h.Releases.Last(ctx, name)
	if err != nil {
		return err
	}
	prev := opts.Version
	if prev == 0 {
		prev = current.Version - 1
	}
	hist, err := h.Releases.History(ctx, name)
	if err != nil {
		return err
	}
	if !slices.ContainsFunc(hist, func(r *Release) bool { return r.Version == prev }) {
		return fmt.Errorf("release has no %d version", prev)
	}
	previous, err := h.Releases.Get(ctx, name, prev)
	if err != nil {
		return err
	}
	target := &Release{
		Name: name, Namespace: current.Namespace, Version: current.Version + 1,
		Chart: previous.Chart, Manifest: previous.Manifest, Labels: maps.Clone(previous.Labels),
		Info: Info{FirstDeployed: current.Info.FirstDeployed, LastDeployed: h.cfg.Clock.Now(),
			Status: StatusPendingRollback, Description: fmt.Sprintf("Rollback to %d", prev)},
	}
	if err := h.Releases.Create(ctx, target); err != nil {
		return err
	}
	currentRes, err := h.build(current.Manifest)
	if err != nil {
		return fmt.Errorf("unable to build kubernetes objects from current release manifest: %w", err)
	}
	targetRes, err := h.build(target.Manifest)
	if err != nil {
		return fmt.Errorf("unable to build kubernetes objects from new release manifest: %w", err)
	}
	if err := h.update(ctx, name, currentRes, targetRes); err != nil {
		current.Info.Status = StatusSuperseded
		target.Info.Status, target.Info.Description = StatusFailed, fmt.Sprintf("Rollback %q failed: %s", name, err)
		_ = h.Releases.Update(ctx, current)
		_ = h.Releases.Update(ctx, target)
		return err
	}
	if opts.Wait {
		if err := h.waitReady(ctx, targetRes, opts.Timeout); err != nil {
			target.Info.Status, target.Info.Description = StatusFailed, fmt.Sprintf("Release %q failed: %s", name, err)
			_ = h.Releases.Update(ctx, current)
			_ = h.Releases.Update(ctx, target)
			return fmt.Errorf("release %s failed: %w", name, err)
		}
	}
	deployed, err := h.Releases.DeployedAll(ctx, name)
	if err != nil && !errors.Is(err, ErrNoDeployedReleases) {
		return err
	}
	for _, r := range deployed { // "Supersede all previous deployments, see issue #2941."
		r.Info.Status = StatusSuperseded
		_ = h.Releases.Update(ctx, r)
	}
	target.Info.Status = StatusDeployed
	return h.Releases.Update(ctx, target)
}

// UninstallOptions are the fields of action.Uninstall this model uses.
type UninstallOptions struct {
	// KeepHistory marks the last revision uninstalled instead of deleting every
	// record.
	KeepHistory bool
	// Wait waits, after deleting, until every deleted object is NotFound, for at
	// most Timeout.
	Wait    bool
	Timeout time.Duration
}

// Uninstall deletes the objects of the last revision and then the records
// (action.Uninstall.Run).
func (h *Helm) Uninstall(ctx context.Context, name string, opts UninstallOptions) (*Release, error) {
	rels, err := h.Releases.History(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("uninstall: Release not loaded: %s: %w", name, err)
	}
	rel := rels[len(rels)-1]
	if rel.Info.Status == StatusUninstalled {
		if opts.KeepHistory {
			return nil, fmt.Errorf("the release named %q is already deleted", name)
		}
		if err := h.purge(ctx, rels); err != nil {
			return nil, fmt.Errorf("uninstall: Failed to purge the release: %w", err)
		}
		return rel, nil
	}
	rel.Info.Status, rel.Info.Deleted, rel.Info.Description = StatusUninstalling, h.cfg.Clock.Now(), "Deletion in progress (or silently failed)"
	_ = h.Releases.Update(ctx, rel) // helm logs "Failed to store updated release"
	resources, err := h.build(rel.Manifest)
	if err != nil {
		return nil, fmt.Errorf("failed to delete release: %s", name)
	}
	sortByKind(resources, uninstallOrder)
	deleted, errs := h.deleteAll(ctx, resources)
	if len(errs) > 0 {
		return nil, fmt.Errorf("failed to delete release: %s", name)
	}
	if opts.Wait {
		if err := h.waitForDelete(ctx, deleted, opts.Timeout); err != nil {
			errs = append(errs, err)
		}
	}
	rel.Info.Status, rel.Info.Description = StatusUninstalled, "Uninstallation complete"
	if !opts.KeepHistory {
		if err := h.purge(ctx, rels); err != nil {
			errs = append(errs, fmt.Errorf("uninstall: Failed to purge the release: %w", err))
		}
	} else {
		_ = h.Releases.Update(ctx, rel)
	}
	if len(errs) > 0 {
		return rel, fmt.Errorf("uninstallation completed with %d error(s): %s", len(errs), joinErrors(errs))
	}
	return rel, nil
}

// purge deletes every record, oldest first (uninstall.go purgeReleases).
func (h *Helm) purge(ctx context.Context, rels []*Release) error {
	for _, r := range rels {
		if _, err := h.Releases.Delete(ctx, r.Name, r.Version); err != nil {
			return err
		}
	}
	return nil
}

func joinErrors(errs []error) string {
	s := make([]string, len(errs))
	for i, e := range errs {
		s[i] = e.Error()
	}
	return strings.Join(s, "; ")
}
