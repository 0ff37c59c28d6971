package clusterextension_test

import (
	"strings"
	"testing"
	"time"

	"github.com/ctrlsim/ctrlsim/operatortest/world"

	. "github.com/onsi/ginkgo/v2"
	. "github.com/onsi/gomega"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	ce "github.com/ctrlsim/ctrlsim/controllers/clusterextension"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/models/helm"
	"github.com/ctrlsim/ctrlsim/operatortest"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
	. "github.com/ctrlsim/ctrlsim/scenarios/clusterextension"
	"github.com/ctrlsim/ctrlsim/sim/plan"
	"github.com/ctrlsim/ctrlsim/sim/trace"
)

// suiteT is the test the specs run in: operatortest.Replay runs each plan
// in a testing/synctest bubble of it.
var suiteT *testing.T

func TestClusterExtension(t *testing.T) {
	suiteT = t
	RegisterFailHandler(Fail)
	RunSpecs(t, "Seed 2 (001): ClusterExtension applier")
}

// horizon is long enough for every spec's plan and the backoff that follows.
const horizon = 10 * time.Minute

// run replays the plan on the world of cfg (Test) over the horizon, healing
// halfway, and observes what the apiserver committed. The generic oracles
// are left out: the specs pin the seed's own behaviour (the kernel's
// verdicts still hold).
func run(cfg Options, planText string) (*operatortest.Replayed, *Observer) {
	GinkgoHelper()
	r := replay(cfg, planText)
	for _, v := range r.Violated() {
		Expect(world.KernelVerdicts).NotTo(ContainElement(v.Property), v.String())
	}
	o, err := Observe(r.Final.Run())
	Expect(err).NotTo(HaveOccurred())
	return r, o
}

func replay(cfg Options, planText string) *operatortest.Replayed {
	GinkgoHelper()
	p, err := plan.Parse(planText)
	Expect(err).NotTo(HaveOccurred())
	o := Test(cfg, horizon/2, horizon/2)
	o = catalogue.ForSpecs(o)
	r, err := operatortest.Replay(suiteT, o, p)
	Expect(err).NotTo(HaveOccurred())
	return r
}

func records(c *operatortest.Replayed) []string {
	GinkgoHelper()
	rs, err := Records(c.Final)
	Expect(err).NotTo(HaveOccurred())
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.String()
	}
	return out
}

func extension(c *operatortest.Replayed) *ce.ClusterExtension {
	GinkgoHelper()
	ext, err := Extension(c.Final)
	Expect(err).NotTo(HaveOccurred())
	return ext
}

// operatorSteps are the operator's steps, in order.
func operatorSteps(c *operatortest.Replayed) []trace.Step {
	var out []trace.Step
	for _, s := range c.Steps {
		if s.Process == ProcessName {
			out = append(out, s)
		}
	}
	return out
}

// lastCallBeforeCrash is "op object" of the operator's last step before its
// first crash: where the plan's crash landed.
func lastCallBeforeCrash(c *operatortest.Replayed) string {
	GinkgoHelper()
	steps := operatorSteps(c)
	for i, s := range steps {
		if s.Op == "crash" {
			Expect(i).To(BeNumerically(">", 0))
			return steps[i-1].Op + " " + steps[i-1].Object
		}
	}
	Fail("the operator never crashed")
	return ""
}

// count is the number of the operator's steps with this op whose object or
// result contains s.
func count(c *operatortest.Replayed, op, s string) int {
	n := 0
	for _, st := range operatorSteps(c) {
		if st.Op == op && (strings.Contains(st.Object, s) || strings.Contains(st.Result, s)) {
			n++
		}
	}
	return n
}

func configMap(c *operatortest.Replayed, name string) (*corev1.ConfigMap, bool) {
	var cm corev1.ConfigMap
	err := c.Final.Get(client.ObjectKey{Namespace: InstallNamespace, Name: name}, &cm)
	return &cm, err == nil
}

const (
	pendingError = "another operation (install/upgrade/rollback) is in progress"
	recordV1     = "Secret op-system/sh.helm.release.v1.op.v1"
	recordV2     = "Secret op-system/sh.helm.release.v1.op.v2"
)

// The operator's client calls in these worlds (see doc.go): the install of
// 1.0.0 at 0s creates record v1 at call 13 and the three objects at calls
// 14-16; the upgrade to 2.0.0 requested at 30s creates record v2 at call 33,
// patches op-config at 36, creates op-migration at 38, patches the Deployment
// at 40, supersedes v1 at 41 and marks v2 deployed at 42.
const (
	planCPI1 = "seed 1\ncrash process=operator-controller call=15\n"
	planCPI2 = "seed 1\ncrash process=operator-controller call=17\n"
	planCPU1 = "seed 1\nat 30s request-version version=2.0.0\ncrash process=operator-controller call=35\n"
	planCPU2 = "seed 1\nat 30s request-version version=2.0.0\ncrash process=operator-controller call=40\n"
	planCPU3 = "seed 1\nat 30s request-version version=2.0.0\ncrash process=operator-controller call=43\n"
	// The upgrade to the newest version (2.0.0), interrupted at CP-U2; 3.0.0
	// (upgrading from 1.0.0 and 2.0.0) is published before the operator restarts.
	planDrift = "seed 1\nat 30s request-version version=>=1.0.0\nat 35s publish version=3.0.0\ncrash process=operator-controller call=40\n"
)

var _ = Describe("Seed 2 (001): the ClusterExtension applier on helm releases", func() {
	DescribeTable("without faults, every variant installs 1.0.0 and upgrades to 2.0.0 when asked",
		func(v variant.Variant) {
			c, o := run(Options{Variant: v}, "seed 1\nat 30s request-version version=2.0.0\n")
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(2.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0", "2.0.0"}))
			ext := extension(c)
			Expect(InstalledVersion(ext)).To(Equal("2.0.0"))
			Expect(Progressing(ext)).To(Equal("desired state reached"))
			cm, ok := configMap(c, "op-migration")
			Expect(ok).To(BeTrue())
			Expect(cm.Annotations).To(HaveKeyWithValue(helm.ReleaseNameAnnotation, ExtensionName))
			Expect(cm.Labels).To(HaveKeyWithValue(ce.OwnerNameLabel, ExtensionName))
			Expect(count(c, "delete", "Secret")).To(BeZero())
		},
		Entry("buggy", variant.Buggy), Entry("fixed", variant.Fixed), Entry("robust", variant.Robust),
	)

	Describe("a crash at CP-I1: after the pending-install record, before any object", func() {
		It("lands after the create of record v1", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planCPI1)
			Expect(lastCallBeforeCrash(c)).To(Equal("create " + recordV1))
		})
		It("leaves the release pending-install forever with the buggy applier (532c3067)", func() {
			c, o := run(Options{Variant: variant.Buggy}, planCPI1)
			Expect(records(c)).To(Equal([]string{"v1=pending-install(1.0.0)"}))
			Expect(o.Deployed).To(BeEmpty())
			Expect(Progressing(extension(c))).To(HavePrefix("failed to get release state using server-side dry-run: " + pendingError))
			Expect(count(c, "result", pendingError)).To(BeNumerically(">=", 15), "retried with backoff for the whole run")
		})
		It("deletes the pending record and installs 1.0.0 with the fixed applier (#1987)", func() {
			c, o := run(Options{Variant: variant.Fixed}, planCPI1)
			Expect(count(c, "result", `removed pending release "op" version 1 metadata`)).To(Equal(1))
			Expect(records(c)).To(Equal([]string{"v1=deployed(1.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0"}))
		})
		It("marks the record failed and completes 1.0.0 from it with the robust applier", func() {
			c, o := run(Options{Variant: variant.Robust}, planCPI1)
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(1.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0"}))
			Expect(count(c, "delete", "Secret")).To(BeZero())
		})
	})

	Describe("a crash at CP-I2: after 2 of the 3 objects", func() {
		It("lands after op-config, with the Deployment not created", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planCPI2)
			Expect(lastCallBeforeCrash(c)).To(Equal("create ConfigMap op-system/op-config"))
			Expect(records(c)).To(Equal([]string{"v1=pending-install(1.0.0)"}))
		})
		It("is adopted by the fixed applier's retried install: the partial objects carry the release's annotations", func() {
			c, _ := run(Options{Variant: variant.Fixed}, planCPI2)
			Expect(records(c)).To(Equal([]string{"v1=deployed(1.0.0)"}))
			Expect(count(c, "patch", "ConfigMap op-system/op-config")+count(c, "create", "ConfigMap op-system/op-config")).To(Equal(1),
				"op-config was adopted (read and left alone), not created twice")
		})
		It("settles at 1.0.0 with the robust applier", func() {
			c, _ := run(Options{Variant: variant.Robust}, planCPI2)
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(1.0.0)"}))
			Expect(InstalledVersion(extension(c))).To(Equal("1.0.0"))
		})
	})

	Describe("a crash at CP-U1: after the pending-upgrade record, before any object changes", func() {
		It("lands after the create of record v2", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planCPU1)
			Expect(lastCallBeforeCrash(c)).To(Equal("create " + recordV2))
		})
		DescribeTable("ends",
			func(v variant.Variant, want []string, installed string) {
				c, _ := run(Options{Variant: v}, planCPU1)
				Expect(records(c)).To(Equal(want))
				Expect(InstalledVersion(extension(c))).To(Equal(installed))
			},
			Entry("pending-upgrade forever with the buggy applier", variant.Buggy, []string{"v1=deployed(1.0.0)", "v2=pending-upgrade(2.0.0)"}, "1.0.0"),
			Entry("deployed at 2.0.0 with the fixed applier, reusing revision 2", variant.Fixed, []string{"v1=superseded(1.0.0)", "v2=deployed(2.0.0)"}, "2.0.0"),
			Entry("deployed at 2.0.0 with the robust applier, the interrupted revision kept as failed", variant.Robust,
				[]string{"v1=superseded(1.0.0)", "v2=failed(2.0.0)", "v3=deployed(2.0.0)"}, "2.0.0"),
		)
	})

	Describe("a crash at CP-U2: mid-update, op-config and op-migration at 2.0.0, the Deployment still at 1.0.0", func() {
		It("lands after the create of op-migration", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planCPU2)
			Expect(lastCallBeforeCrash(c)).To(Equal("create ConfigMap op-system/op-migration"))
		})
		It("leaves the release pending-upgrade forever with the buggy applier: a human has to delete the Secret", func() {
			c, o := run(Options{Variant: variant.Buggy}, planCPU2)
			Expect(records(c)).To(Equal([]string{"v1=deployed(1.0.0)", "v2=pending-upgrade(2.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0"}))
			ext := extension(c)
			Expect(Progressing(ext)).To(Equal("failed to get release state using server-side dry-run: " + pendingError +
				` for resolved bundle "op.v2.0.0" with version "2.0.0"`))
			Expect(InstalledVersion(ext)).To(Equal("1.0.0"))
			Expect(count(c, "result", pendingError)).To(BeNumerically(">=", 15))
		})
		It("deletes the pending record and reaches deployed 2.0.0 with the fixed applier, adopting op-migration", func() {
			c, o := run(Options{Variant: variant.Fixed}, planCPU2)
			Expect(count(c, "delete", recordV2)).To(Equal(1))
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(2.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0", "2.0.0"}))
			Expect(count(c, "create", "ConfigMap op-system/op-migration")).To(Equal(1), "adopted, not created again")
		})
		It("resumes 2.0.0 without deleting any record with the robust applier", func() {
			c, o := run(Options{Variant: variant.Robust}, planCPU2)
			Expect(count(c, "delete", "Secret")).To(BeZero())
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=failed(2.0.0)", "v3=deployed(2.0.0)"}))
			Expect(o.Deployed).To(Equal([]string{"1.0.0", "2.0.0"}))
		})
	})

	Describe("a crash at CP-U3: 1.0.0 superseded, 2.0.0 pending, the cluster fully at 2.0.0", func() {
		It("lands after the update of record v1 to superseded", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planCPU3)
			Expect(lastCallBeforeCrash(c)).To(Equal("update " + recordV1))
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=pending-upgrade(2.0.0)"}))
		})
		It("loses status.install with the buggy applier: no record is deployed, and it stays stuck", func() {
			c, o := run(Options{Variant: variant.Buggy}, planCPU3)
			Expect(o.Installs).To(Equal([]string{"", "1.0.0", ""}))
			Expect(Progressing(extension(c))).To(ContainSubstring(pendingError))
		})
		It("resets status.install to nothing while it recovers with the fixed applier (I3 broken), then deploys 2.0.0", func() {
			c, o := run(Options{Variant: variant.Fixed}, planCPU3)
			Expect(o.Installs).To(Equal([]string{"", "1.0.0", "", "2.0.0"}))
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(2.0.0)"}))
		})
		It("never shows an empty install after the first one with the robust applier", func() {
			c, o := run(Options{Variant: variant.Robust}, planCPU3)
			Expect(o.Installs).To(Equal([]string{"", "1.0.0", "2.0.0"}))
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=superseded(2.0.0)", "v3=deployed(2.0.0)"}))
		})
	})

	Describe("a crash during the upgrade to 2.0.0, and 3.0.0 published before the operator restarts (catalog drift)", func() {
		It("keeps the buggy applier stuck on the pending record", func() {
			c, _ := run(Options{Variant: variant.Buggy}, planDrift)
			Expect(records(c)).To(Equal([]string{"v1=deployed(1.0.0)", "v2=pending-upgrade(2.0.0)"}))
		})
		It("makes the fixed applier skip to 3.0.0 (no-version-skip violated) and orphan op-migration", func() {
			c, o := run(Options{Variant: variant.Fixed}, planDrift)
			Expect(o.Deployed).To(Equal([]string{"1.0.0", "3.0.0"}), "2.0.0, partly rolled out, was never completed")
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=deployed(3.0.0)"}))
			_, ok := configMap(c, "op-migration")
			Expect(ok).To(BeTrue(), "created by the interrupted attempt, in no record: nothing deletes it")
		})
		It("makes the robust applier deploy 2.0.0 first, then 3.0.0", func() {
			c, o := run(Options{Variant: variant.Robust}, planDrift)
			Expect(o.Deployed).To(Equal([]string{"1.0.0", "2.0.0", "3.0.0"}))
			Expect(records(c)).To(Equal([]string{"v1=superseded(1.0.0)", "v2=failed(2.0.0)", "v3=superseded(2.0.0)", "v4=deployed(3.0.0)"}))
			_, ok := configMap(c, "op-migration")
			Expect(ok).To(BeFalse(), "2.0.0's op-migration is removed by the upgrade to 3.0.0")
		})
	})

	It("replays a plan to the same trace (determinism)", func() {
		a, b := replay(Options{Variant: variant.Robust}, planDrift), replay(Options{Variant: variant.Robust}, planDrift)
		Expect(a.Hash).To(Equal(b.Hash))
		Expect(lastCallBeforeCrash(a)).To(Equal("create ConfigMap op-system/op-migration"), "the run crashed where the plan says")
	})
})
