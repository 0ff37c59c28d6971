//go:build ctrlsim_tidy

package adopter

// The eight staging modules that k8s.io/kubernetes requires at v0.0.0 and
// no package of ctrlsim's build comes from, for go mod tidy: ctrlsim's
// go.mod requires them at their release, so that a module that depends on
// ctrlsim selects that release too (at v0.0.0, which no module proxy
// serves, go doc and go list -m all fail there); tidy drops a requirement
// no package imports, and it reads the files of every build tag, so it
// follows these imports. No build sets the tag, and no package imports
// this one: neither ctrlsim's build nor an adopter's compiles them, nor
// does an adopter's go mod tidy follow them
// (TestCtrlsimRequiresWhatKubernetesRequiresAtV000,
// TestGoDocWorksInAModuleThatRequiresCtrlsim).
import (
	_ "k8s.io/cluster-bootstrap/token/api"
	_ "k8s.io/cri-api/pkg/apis/runtime/v1"
	_ "k8s.io/cri-client/pkg/util"
	_ "k8s.io/cri-streaming/pkg/streaming/portforward"
	_ "k8s.io/endpointslice/util"
	_ "k8s.io/externaljwt/apis/v1"
	_ "k8s.io/pod-security-admission/api"
	_ "k8s.io/sample-apiserver/pkg/apis/wardle"
)
