package scoped_test

// The test of this file shows the Known gap of doc.go as it is today: a
// change that closes it breaks the test, and the item goes with it.

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/ctrlsim/ctrlsim/examples/internal/faultfree"
	"github.com/ctrlsim/ctrlsim/examples/scoped"
	"github.com/ctrlsim/ctrlsim/operatortest"
)

func TestAChangeOfThePlatformSecretIsNotCopiedAgain(t *testing.T) {
	o := options(true, "shop")
	platform := &corev1.Secret{}
	platform.Namespace, platform.Name = scoped.PlatformNamespace, scoped.SecretName
	o.Workload.Script = []operatortest.Step{operatortest.Patch(10*time.Second, platform, `{"data":{".dockerconfigjson":"eyJhdXRocyI6e319"}}`)}
	r := faultfree.Replay(t, o)
	if err := r.Final.Get(client.ObjectKeyFromObject(platform), platform); err != nil {
		t.Fatal(err)
	}
	var copied corev1.Secret
	if err := r.Final.Get(client.ObjectKey{Namespace: "shop", Name: scoped.SecretName}, &copied); err != nil {
		t.Fatal(err)
	}
	if got, was := string(platform.Data[".dockerconfigjson"]), string(copied.Data[".dockerconfigjson"]); got != `{"auths":{}}` || was != "{}" {
		t.Errorf("the platform Secret holds %q, the app's copy %q; want the change, and the copy as first made ({})", got, was)
	}
	faultfree.NoWrite(t, r, "scoped", "Secret "+scoped.PlatformNamespace+"/")
}
