package poller_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"github.com/ctrlsim/ctrlsim/examples/poller"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

// start is the instant every plan's run starts at: operatortest runs each
// plan in a testing/synctest bubble, whose clock starts at midnight UTC on 1
// January 2000 and follows the run's virtual time (package wallclock).
var start = time.Date(2000, 1, 1, 0, 0, 0, 0, time.UTC)

// registry is the outside system the test owns: it publishes 1.0.0 of every
// repository at the start, 1.1.0 after 25s and 1.2.0 after 50s, and is
// unavailable from 8s to 20s (a registry outage: every request fails).
type registry struct{}

var releases = []struct {
	after   time.Duration
	version string
}{{0, "1.0.0"}, {25 * time.Second, "1.1.0"}, {50 * time.Second, "1.2.0"}}

const outageFrom, outageUntil = 8 * time.Second, 20 * time.Second

func latestAt(at time.Duration, repository string) string {
	v := ""
	for _, r := range releases {
		if at >= r.after {
			v = r.version
		}
	}
	return repository + ":" + v
}

func (registry) Latest(_ context.Context, repository string) (string, error) {
	at := time.Since(start) // the bubble's clock: virtual time
	if at >= outageFrom && at < outageUntil {
		return "", fmt.Errorf("GET https://registry.example.com/v2/%s/tags/list: 503 Service Unavailable", repository)
	}
	return latestAt(at, repository), nil
}

func options(buggy bool) operatortest.Options {
	scheme := runtime.NewScheme()
	_ = clientgoscheme.AddToScheme(scheme)
	_ = poller.AddToScheme(scheme)
	return operatortest.Options{
		Scheme: scheme,
		CRDs:   [][]byte{poller.CRD},
		Managers: []operatortest.Manager{{Name: "poller", Setup: func(mgr manager.Manager) error {
			return poller.Setup(mgr, registry{}, buggy)
		}}},
		Objects: []client.Object{&poller.Image{
			ObjectMeta: metav1.ObjectMeta{Namespace: "shop", Name: "web"},
			Spec:       poller.ImageSpec{Repository: "shop/web"},
		}},
		Checks: 30,
		Properties: []operatortest.Property{{Name: "status-follows-the-registry", Check: func(h *operatortest.History) error {
			var images poller.ImageList
			if err := h.List(&images); err != nil {
				return err
			}
			for _, img := range images.Items {
				if want := latestAt(h.End(), img.Spec.Repository); img.Status.Latest != want {
					return fmt.Errorf("Image %s/%s: status.latest %q at rest, the registry publishes %q", img.Namespace, img.Name, img.Status.Latest, want)
				}
			}
			return nil
		}}},
	}
}

// The operator holds under default options (the generated workload and
// every fault): its poller, a goroutine its Runnable starts, runs as a task
// of its process (crashed with it, started again with it), survives the
// registry's outage, and its events reach the controller through
// source.Channel, so every Image ends at the registry's latest version.
func TestThePollerFollowsTheRegistry(t *testing.T) {
	operatortest.Run(t, options(false))
}

// The buggy poller returns the registry's error from its poll condition:
// wait.PollUntilContextCancel then stops for good, the goroutine ends, and
// the releases after the outage never reach the Images (unless a crash
// restarts the process after it). Caught by the test's property.
func TestAPollerThatStopsOnAnErrorIsCaught(t *testing.T) {
	o := options(true)
	o.Expect = "status-follows-the-registry"
	operatortest.Run(t, o)
}
