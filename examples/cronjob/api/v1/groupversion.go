package v1

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/scheme"
)

var (
	// GroupVersion is the group and version of the CronJob kind.
	GroupVersion = schema.GroupVersion{Group: "batch.ctrlsim.dev", Version: "v1"}

	// SchemeBuilder registers the kinds of this package with a scheme.
	SchemeBuilder = &scheme.Builder{GroupVersion: GroupVersion}

	// AddToScheme adds CronJob and CronJobList to a scheme.
	AddToScheme = SchemeBuilder.AddToScheme
)
