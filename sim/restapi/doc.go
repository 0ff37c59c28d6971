// Package restapi serves the Kubernetes REST API of the apiserver model
// in-process: Transport is an http.RoundTripper (no socket, nothing dialled)
// behind the rest.Config and http.Client that a process's manager returns
// from GetConfig and GetHTTPClient. client-go's typed clientsets
// (kubernetes.NewForConfig), the apiextensions clientset, the dynamic client,
// the discovery client and restmapper's discovery-based RESTMapper work on it
// unchanged.
//
// # Contract
//
//   - Each request is one call of the process's uncached client
//     (kubeclient.Client.Uncached): the same hooks as the manager's client, so
//     the same trace step, yield point, request and response latency, crash
//     at a call or after a write, identity (RBAC), and injected API faults.
//     A request for a path no served kind has is one call too (traced as its
//     verb on a Status named by the path: a kind whose CRD is not established
//     yet, or deleted, is answered 404 with the plain text "404 page not
//     found", as kube-apiserver's not-found handler answers).
//   - Discovery (/api, /apis, /version, /api/v1, /apis/<group>/<version>) is
//     answered from the server's kind table without being a call of the
//     process: client-go's discovery client fetches group versions from
//     goroutines of its own, which must not enter the scheduler (they run
//     while the calling task waits for them, so they only read).
//   - Paths: /api, /apis, /version, /api/v1 and /apis/<group>/<version>
//     (unaggregated discovery: client-go falls back to it), and the resource
//     paths of every served kind, namespaced or not: get, list (label and
//     field selectors, limit, continue), create, update, patch (the patch
//     type is the Content-Type), delete (DeleteOptions from the body or the
//     query), deletecollection, and the status subresource (get, update,
//     patch) and namespaces/finalize.
//   - Bodies are decoded with apimachinery's codec factory of the server's
//     scheme for the request's Content-Type (JSON or protobuf for typed
//     kinds; JSON for kinds only a CRD defines, as Unstructured); a body
//     whose name or namespace differs from the path's is the handler's 400.
//   - Answers are JSON with apiVersion and kind (lists <Kind>List); an API
//     error is its metav1.Status with its code, so client-go rebuilds the
//     same *errors.StatusError; a delete answers a Success Status. An error
//     the server did not answer (the process died during the call) is the
//     transport's error.
//
// # Known gaps
//
//   - Watches (?watch=true) are refused with a 405 whose message names the
//     resource ("watch of configmaps over the REST config is not served"):
//     informer factories built on a clientset (and dynamic informers) never
//     sync. Use the manager's cache (mgr.GetCache(), the client) for events.
//   - Subresources other than status and namespaces/finalize (scale,
//     eviction, binding, pods/log, pods/exec, attach, port-forward) are
//     refused with a 405 that names them.
//   - No aggregated discovery, no OpenAPI documents (/openapi/v2, /openapi/v3
//     answer 404), no Table output, no server-side apply (the client's 415),
//     no dry run (400), no Retry-After headers (client-go's automatic retry of
//     429 and 5xx answers is not exercised), and a delete answers a Success
//     Status even when finalizers keep the object (kube-apiserver answers the
//     object then).
//   - Only the kinds the server serves exist: the built-in kinds of the
//     scheme it was given (a group missing from the scheme is a 404 here),
//     and the CRDs installed.
//   - ctrl.GetConfig, GetConfigOrDie and GetConfigWithContext read the
//     kubeconfig flag, KUBECONFIG, the in-cluster files and ~/.kube/config:
//     they are process-global and have no seam through which a simulated
//     process could be told apart, so they do not reach the simulator. A
//     process's code gets its config from the manager (mgr.GetConfig(),
//     mgr.GetHTTPClient()); an operator whose main.go calls
//     ctrl.GetConfigOrDie() and passes the result to ctrl.NewManager needs
//     nothing else, as operatortest hands its Setup the simulator's manager.
package restapi
