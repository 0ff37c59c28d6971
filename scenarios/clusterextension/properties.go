package clusterextension

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/watch"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/models/catalog"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/sim/apiserver"
	"github.com/ctrlsim/ctrlsim/sim/check"
)

// The properties of the seed 2 entries (docs/design.md "Properties").
const (
	PropReleaseSettles = "release-settles"
	PropNoVersionSkip  = "no-version-skip"
)

var secretGVK = corev1.SchemeGroupVersion.WithKind("Secret")

// ReleaseSettles is release-settles: at the end of the heal budget no record of
// the release is pending, and the newest one is deployed at the desired version.
// The desired version is the highest of published (the catalog's content by the
// end of the run) that the ClusterExtension's final version range admits: every
// bundle of this world upgrades from every older one, so resolution reaches it
// from any installed version.
func ReleaseSettles(published func(r *check.Run) []string) check.Property {
	return check.Eventually{Property: PropReleaseSettles, Desired: func(r *check.Run) error {
		recs, err := finalRecords(r)
		if err != nil {
			return err
		}
		if len(recs) == 0 {
			return errors.New("the release has no record at the end of the heal budget")
		}
		var pending []string
		for _, rec := range recs {
			if rec.Status.IsPending() {
				pending = append(pending, rec.String())
			}
		}
		if len(pending) > 0 {
			return fmt.Errorf("pending at rest: %s (records %s)", strings.Join(pending, ", "), recordList(recs))
		}
		newest := recs[len(recs)-1]
		if newest.Status != helm.StatusDeployed {
			return fmt.Errorf("the newest record is %s, not deployed (records %s)", newest, recordList(recs))
		}
		want, err := desiredVersion(r, published(r))
		if err != nil {
			return err
		}
		if newest.Bundle != want {
			return fmt.Errorf("deployed at %s, the spec and the catalog ask for %s (records %s)", newest.Bundle, want, recordList(recs))
		}
		return nil
	}}
}

// NoVersionSkip is no-version-skip, over the watch log: once a revision of the
// release is pending at bundle version B (an operation towards B began), the next
// revision that becomes deployed is at B, unless the version range in force at
// that moment no longer admits B (the user asked for something else). An
// operation that was not interrupted deploys the revision it made pending, so
// only an interrupted one can break it: v1 deployed, v2 partly applied, then v3
// deployed.
func NoVersionSkip() check.Property {
	return check.Eventually{Property: PropNoVersionSkip, Desired: func(r *check.Run) error {
		status := map[string]helm.Status{} // record name -> status, since its last creation
		versionRange := ""
		var want string // the bundle of the first pending revision since the last deploy
		var wantRev int
		var wantAt time.Duration
		for _, ev := range r.Log {
			if ext, ok := ev.Object.(*ce.ClusterExtension); ok && ext.Name == ExtensionName {
				if c := ext.Spec.Source.Catalog; c != nil {
					versionRange = c.Version
				}
				continue
			}
			rel, ok, err := releaseOf(ev)
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			name := ev.Object.GetName()
			prev := status[name]
			if ev.Type == watch.Deleted {
				delete(status, name)
				continue
			}
			status[name] = rel.Info.Status
			bundle := rel.Labels[ce.BundleVersionLabel]
			switch {
			case rel.Info.Status.IsPending() && want == "":
				want, wantRev, wantAt = bundle, rel.Version, ev.At.Sub(r.Start)
			case rel.Info.Status == helm.StatusDeployed && prev != helm.StatusDeployed:
				if want != "" && bundle != want {
					admitted, err := catalog.ParseRange(versionRange)
					if err != nil {
						return err
					}
					if admitted(want) {
						return fmt.Errorf("revision %d went pending towards %s at %s; the next deployed revision, %d at %s, is %s (version range %q still admits %s)",
							wantRev, want, wantAt, rel.Version, ev.At.Sub(r.Start), bundle, versionRange, want)
					}
				}
				want = ""
			}
		}
		return nil
	}}
}

// releaseOf decodes a watch event of one of the release's record Secrets.
func releaseOf(ev apiserver.Event) (*helm.Release, bool, error) {
	sec, ok := ev.Object.(*corev1.Secret)
	if !ok || !isRecord(sec) {
		return nil, false, nil
	}
	rel, err := helm.ReleaseOf(sec)
	if err != nil {
		return nil, false, fmt.Errorf("record %s: %w", sec.Name, err)
	}
	return rel, true, nil
}

func isRecord(sec *corev1.Secret) bool {
	l := sec.GetLabels()
	return sec.Namespace == InstallNamespace && l["owner"] == "helm" && l["name"] == ExtensionName
}

// finalRecords are the release's records at the end of the run, oldest first.
func finalRecords(r *check.Run) ([]Record, error) {
	var out []Record
	for _, o := range r.Objects(secretGVK) {
		sec, ok := o.(*corev1.Secret)
		if !ok || !isRecord(sec) {
			continue
		}
		rel, err := helm.ReleaseOf(sec)
		if err != nil {
			return nil, fmt.Errorf("record %s: %w", sec.Name, err)
		}
		out = append(out, Record{Version: rel.Version, Status: rel.Info.Status, Bundle: rel.Labels[ce.BundleVersionLabel]})
	}
	slices.SortFunc(out, func(a, b Record) int { return a.Version - b.Version })
	return out, nil
}

func recordList(recs []Record) string {
	parts := make([]string, len(recs))
	for i, r := range recs {
		parts[i] = r.String()
	}
	return strings.Join(parts, " ")
}

// desiredVersion is the highest published version the ClusterExtension's final
// version range admits.
func desiredVersion(r *check.Run, published []string) (string, error) {
	var ext *ce.ClusterExtension
	for _, o := range r.Objects(ce.ClusterExtensionGVK) {
		if e, ok := o.(*ce.ClusterExtension); ok && e.Name == ExtensionName {
			ext = e
		}
	}
	if ext == nil || ext.Spec.Source.Catalog == nil {
		return "", fmt.Errorf("no ClusterExtension %s with a catalog source at the end", ExtensionName)
	}
	admitted, err := catalog.ParseRange(ext.Spec.Source.Catalog.Version)
	if err != nil {
		return "", err
	}
	best := ""
	for _, v := range published {
		if admitted(v) && (best == "" || catalog.CompareVersions(v, best) > 0) {
			best = v
		}
	}
	if best == "" {
		return "", fmt.Errorf("no published version (%s) is admitted by %q", strings.Join(published, ", "), ext.Spec.Source.Catalog.Version)
	}
	return best, nil
}

// published is the catalog's content by the end of run r in a world of cfg:
// the versions published from the start, plus those of the plan's publish
// steps that ran.
func (cfg Options) published(r *check.Run) []string {
	out := slices.Clone(cfg.withDefaults().Published)
	for _, s := range r.Plan.Steps {
		if s.Action == "publish" && s.At <= r.End {
			out = append(out, s.Args.Get("version"))
		}
	}
	return out
}
