package process

import (
	"net/http"

	"k8s.io/client-go/rest"
)

// GetConfig is a rest.Config served in-process by the apiserver model
// (package restapi): clientsets, the dynamic client, discovery and a
// discovery-based RESTMapper built on it make their requests as this
// incarnation's own client calls (its identity, trace, latency, crash points
// and the server's faults). Each call returns a fresh copy, as a caller may
// change it (rest.CopyConfig, a UserAgent, a ContentType).
func (m *Manager) GetConfig() *rest.Config { return m.rest.Config() }

// GetHTTPClient is the http.Client of GetConfig's transport, for
// NewForConfigAndClient constructors.
func (m *Manager) GetHTTPClient() *http.Client { return m.rest.HTTPClient() }

// GetConfig is the REST config of the current incarnation (Manager.GetConfig),
// for code that is handed the process rather than its manager.
func (p *Process) GetConfig() *rest.Config { return p.mgr.GetConfig() }
