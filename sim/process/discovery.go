package process

import (
	"k8s.io/client-go/discovery"
	"sigs.k8s.io/controller-runtime/pkg/manager"
)

// Discovery is d reading discovery from mgr's apiserver with no request
// (restapi.Transport.Discovery), where mgr is a process's manager; d
// otherwise. Discovery is no call of the process either way.
func Discovery(mgr manager.Manager, d discovery.DiscoveryInterface) discovery.DiscoveryInterface {
	if m, ok := mgr.(*Manager); ok {
		return m.rest.Discovery(d)
	}
	return d
}
