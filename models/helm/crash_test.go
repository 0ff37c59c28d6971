package helm_test

import (
	"errors"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/models/helm"
)

// The crash points of seed 2 (SEEDS.md (c)), each reached by killing the
// process at one client call of the documented sequence (doc.go). Install of
// chartV1 (n=3 objects, none present): 1 list, 2-4 gets, 5 create record, 6-8
// creates, 9 update record. Upgrade v1 -> v2 (one object new in v2, four target
// objects): 1 list, 2 get op-migration, 3 create record v2, 4 get
// ServiceAccount, 5 get op-config, 6 patch op-config, 7 get op-migration, 8
// create op-migration, 9 get Deployment, 10 patch Deployment, 11 update v1
// superseded, 12 update v2 deployed.
func TestCrashPoints(t *testing.T) {
	for _, tc := range []struct {
		name    string
		upgrade bool // crash during the upgrade v1 -> v2, else during the install of v1
		crashAt int
		records string
		present map[string]string // ConfigMap -> data version ("" absent)
		image   string            // Deployment image, "" absent
	}{
		{name: "CP-I1 after the pending-install record, before any object", crashAt: 6,
			records: "v1=pending-install", present: map[string]string{"op-config": ""}},
		{name: "CP-I2 after 2 of 3 objects", crashAt: 8,
			records: "v1=pending-install", present: map[string]string{"op-config": "1"}},
		{name: "CP-U1 after the pending-upgrade record, before KubeClient.Update", upgrade: true, crashAt: 4,
			records: "v1=deployed v2=pending-upgrade", present: map[string]string{"op-config": "1", "op-migration": ""}, image: "op:v1"},
		{name: "CP-U2 mid-Update: op-config at v2, op-migration and the Deployment not yet", upgrade: true, crashAt: 8,
			records: "v1=deployed v2=pending-upgrade", present: map[string]string{"op-config": "2", "op-migration": ""}, image: "op:v1"},
		{name: "CP-U3 after v1 superseded, before v2 deployed: the cluster is fully at v2", upgrade: true, crashAt: 12,
			records: "v1=superseded v2=pending-upgrade", present: map[string]string{"op-config": "2", "op-migration": "1"}, image: "op:v2"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t)
			act := func() { _, _ = e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{}) }
			if tc.upgrade {
				e.install(chartV1())
				act = func() { _, _ = e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{}) }
			}
			e.c.crashAt = tc.crashAt
			if !run(act) {
				t.Fatalf("no crash at call %d", tc.crashAt)
			}
			e.c.crashAt = 0
			if s := e.statuses("app"); s != tc.records {
				t.Errorf("records %s, want %s", s, tc.records)
			}
			for name, version := range tc.present {
				cm, ok := e.configMap(name)
				switch {
				case version == "" && ok:
					t.Errorf("%s exists, want it absent", name)
				case version != "" && !ok:
					t.Errorf("%s is absent, want it at %s", name, version)
				case ok && cm.Data["version"] != version && cm.Data["from"] != version:
					t.Errorf("%s data %v, want version %s", name, cm.Data, version)
				}
			}
			var d appsv1.Deployment
			err := e.c.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "op"}, &d)
			if got := image(&d, err); got != tc.image {
				t.Errorf("Deployment image %q, want %q", got, tc.image)
			}

			// Buggy applier (operator-controller 532c3067): the dry-run upgrade
			// fails with errPending, every time.
			if _, err := e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{DryRun: true}); !errors.Is(err, helm.ErrPending) {
				t.Errorf("dry-run upgrade error %v, want errPending", err)
			}

			// Fixed applier (#1987): delete the pending record, then install or
			// upgrade again; helm adopts what the interrupted attempt created.
			last, _ := e.h.Get(ctx, "app")
			if _, err := e.h.Releases.Delete(ctx, "app", last.Version); err != nil {
				t.Fatal(err)
			}
			if tc.upgrade {
				_, err = e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{})
			} else {
				_, err = e.h.Install(ctx, "app", chartV1(), helm.InstallOptions{})
			}
			if err != nil {
				t.Fatalf("retry after deleting the pending record: %v", err)
			}
			if got, _ := e.h.Get(ctx, "app"); got.Info.Status != helm.StatusDeployed || got.Version != last.Version {
				t.Errorf("after the retry: revision %d %s, want revision %d deployed (the number is reused)", got.Version, got.Info.Status, last.Version)
			}
		})
	}
}

func image(d *appsv1.Deployment, err error) string {
	if err != nil {
		return ""
	}
	return d.Spec.Template.Spec.Containers[0].Image
}

// CP-U3 with the fixed applier's recovery: once the pending v2 record is gone,
// no record is deployed (I3 broken) and Last is v1 superseded.
func TestCrashPointU3LeavesNoDeployedRecordOnceThePendingOneIsDeleted(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.c.crashAt = 12
	if !run(func() { _, _ = e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{}) }) {
		t.Fatal("no crash")
	}
	e.c.crashAt = 0
	if _, err := e.h.Releases.Delete(ctx, "app", 2); err != nil {
		t.Fatal(err)
	}
	if _, err := e.h.Releases.Deployed(ctx, "app"); !errors.Is(err, helm.ErrNoDeployedReleases) {
		t.Errorf("Deployed: %v, want no deployed releases", err)
	}
	if last, _ := e.h.Get(ctx, "app"); last.Version != 1 || last.Info.Status != helm.StatusSuperseded {
		t.Errorf("last %d %s, want v1 superseded", last.Version, last.Info.Status)
	}
}

// Marking an interrupted record failed instead (the robust applier) keeps the
// deployed one and lets helm upgrade to the same chart, adopting leftovers.
func TestMarkingAnInterruptedRecordFailedKeepsTheDeployedOne(t *testing.T) {
	e := newEnv(t)
	e.install(chartV1())
	e.c.crashAt = 8
	if !run(func() { _, _ = e.h.Upgrade(ctx, "app", chartV2(), helm.UpgradeOptions{}) }) {
		t.Fatal("no crash")
	}
	e.c.crashAt = 0
	pending, _ := e.h.Get(ctx, "app")
	pending.Info.Status = helm.StatusFailed
	if err := e.h.Releases.Update(ctx, pending); err != nil {
		t.Fatal(err)
	}
	if s := e.statuses("app"); s != "v1=deployed v2=failed" {
		t.Errorf("records %s", s)
	}
	c, err := helm.ChartOf(pending, e.c.Scheme())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := e.h.Upgrade(ctx, "app", c, helm.UpgradeOptions{}); err != nil {
		t.Fatal(err)
	}
	if s := e.statuses("app"); s != "v1=superseded v2=failed v3=deployed" {
		t.Errorf("records %s", s)
	}
	if cm, ok := e.configMap("op-migration"); !ok || cm.Annotations[helm.ReleaseNameAnnotation] != "app" {
		t.Error("op-migration was not created with ownership metadata")
	}
}
