package kopf

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime"

	kopfop "github.com/ctrlsim/ctrlsim/controllers/kopf"
	"github.com/ctrlsim/ctrlsim/controllers/variant"
	"github.com/ctrlsim/ctrlsim/scenarios/catalogue"
)

// Names of the world.
const (
	Operator  = "kopf"    // the operator's process
	Namespace = "default" // where the KopfExamples live
)

// Options shape a world (Test).
type Options struct {
	Variant variant.Variant // of the operator
	// Quiet gives the operator QuietHandler instead of ReportHandler: handling an
	// object then makes no watch event of its own.
	Quiet bool
}

// Scheme returns client-go's scheme with KopfExample.
func Scheme() *runtime.Scheme { return catalogue.NewScheme(kopfop.AddToScheme) }

// sharedScheme is one Scheme for every world: a scheme is only read once
// built, and building client-go's costs more than a short run of a world.
var sharedScheme = sync.OnceValue(Scheme)
