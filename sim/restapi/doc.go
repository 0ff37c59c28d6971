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
//   - OpenAPI (openapi.go): /openapi/v2 (JSON, or protobuf for the
//     discovery client's OpenAPISchema) and /openapi/v3 (the discovery of
//     group versions, each with its serverRelativeURL and SHA-512 hash, then
//     /openapi/v3/<group version>, JSON or protobuf, a stale hash redirected
//     with a 301), served as discovery is (not a call of the process), as
//     kube-apiserver builds them: built-in kinds' routes templated as
//     k8s.io/apiserver's APIInstaller registers them, built by kube-openapi's
//     builders with kube-apiserver's configuration (the compiled
//     definitions of k8s.io/kubernetes/pkg/generated/openapi, its
//     DefinitionNamer's x-kubernetes-group-version-kind), once per process
//     on first use (about 2 s each for v2 and for all of v3; a world that
//     never asks pays nothing); custom kinds by apiextensions' builder from
//     their CRD's schema, merged as its controllers merge them, so the
//     documents follow the CRDs served at the request. client-go's
//     discovery OpenAPIV3().Paths() and a group version's Schema, and so
//     k8s.io/apiserver's CEL ClientDiscoveryResolver, work unchanged
//     (TestADeploymentsSchemaResolvesThroughTheDiscoveryClientsOpenAPIV3,
//     TestACRDsSchemaAppearsInTheOpenAPIDocumentsOnceItIsServed,
//     TestTheBuiltInOpenAPIDocumentsAreTheSameBytesWhenBuiltTwice).
//   - Paths: /api, /apis, /version, /api/v1 and /apis/<group>/<version>
//     (unaggregated discovery: client-go falls back to it), and the resource
//     paths of every served kind, namespaced or not: get, list (label and
//     field selectors, limit, continue), create, update, patch (the patch
//     type is the Content-Type), delete (DeleteOptions from the body or the
//     query), deletecollection, and the status subresource (get, update,
//     patch) and namespaces/finalize. A write's dryRun query is the
//     server's dry run (TestADryRunOverRESTIsAnsweredAndStoresNothing).
//   - Bodies are decoded with apimachinery's codec factory of the server's
//     scheme for the request's Content-Type (JSON or protobuf for typed
//     kinds; JSON for kinds only a CRD defines, as Unstructured); a body
//     whose name or namespace differs from the path's is the handler's 400.
//   - Answers carry apiVersion and kind (lists <Kind>List); an API error is
//     its metav1.Status with its code, so client-go rebuilds the same
//     *errors.StatusError; a delete answers a Success Status. An error the
//     server did not answer (the process died during the call) is the
//     transport's error.
//   - An answer, and a watch's events, are in the first media type of the
//     request's Accept that kube-apiserver has for it (protobuf.go):
//     protobuf for built-in kinds, their lists, Status and
//     PartialObjectMetadata (the metadata client's get answers it), JSON for
//     a kind only a CRD defines. client-go v0.37's typed clients, so the
//     hosted kube-controller-manager's clientsets and controller-runtime's
//     clients and caches of built-in kinds, ask for protobuf first, as they
//     do of a cluster
//     (TestAnAnswerIsInTheFirstMediaTypeTheClientAcceptsThatTheKindHas).
//   - Watches (?watch=true) and lists at resourceVersion 0 (watch.go) are
//     served from the process's watch cache of the kind (Feed: package
//     process's feed of its own informer, so the plan's lag, holds and
//     relists), as kube-apiserver serves them from its watch cache: the list
//     is the cached objects at the cache's resourceVersion, in
//     namespace/name order, or in the feed's order (the plan's shuffle) for
//     a reflector's list, which stands for the any-order initial events of
//     the watch-list client-go v0.37 makes (listedByReflector); a watch-list
//     (sendInitialEvents) is the cached objects as ADDED events, then the
//     bookmark with the k8s.io/initial-events-end annotation; a watch from a
//     resourceVersion replays the events applied after it, 410 Expired when
//     it is older than the feed. Each is one call of the process (verbs
//     list, watch). The answer is a stream of watch events that the
//     kernel writes as the feed applies them, each followed by settle, so
//     that client-go's reflector, shared informer factory, dynamic and
//     metadata informer factories (PartialObjectMetadata events and lists
//     for the metadata client's Accept), listers and indexers run
//     unmodified on it
//     (TestAWatchStreamsTheFeedFromItsResourceVersion,
//     TestAWatchListSendsTheCacheThenItsBookmark,
//     TestAListAtResourceVersionZeroIsTheProcesssWatchCache).
//   - pods/exec and pods/attach (exec.go): the config's WrapTransport, which
//     client-go applies to the upgrading round trippers it builds from a
//     config, answers the SPDY executor of tools/remotecommand
//     (NewSPDYExecutor) and its WebSocket executor (NewWebSocketExecutor,
//     protocol v5, and so NewFallbackExecutor, which tries it first) in
//     process: the operator's code calls remotecommand unchanged. The
//     upgrade is one call of the process (create on pods/exec or
//     pods/attach: trace step create/exec, yield, latency, crash points,
//     RBAC, injected faults); in it the apiserver model admits the request
//     as kube-apiserver's pod registry does (the pod, its container, its
//     node: their 404 and 400 texts, apiserver.Server.Connect), the kubelet
//     finds the container only if it runs (else its `container not found
//     ("app")`), and the handler the test gives for the container
//     (SetExec: operatortest.Options.Exec) runs the command. Without a
//     handler the exec fails with one error naming the process, the pod,
//     the container and the command. The 101 answer carries an in-memory
//     net.Conn (execConn) on which client-go's own SPDY client (spdystream)
//     talks to a kubelet side that answers as the kubelet's remotecommand
//     server with protocol v4: a reply per stream, stdin read to its end,
//     stdout and stderr, then the Status on the error stream (success, the
//     exit code as NonZeroExitCode, which the client turns into
//     exec.CodeExitError, or the internal error of a command that cannot
//     run). execConn has no goroutine of its own: its kubelet side runs
//     inside the client's writes; the executor's own goroutines run while
//     the calling task waits for them and end with the exec (in a
//     testing/synctest bubble they are durably blocked on channels of the
//     bubble, never on the wall clock). An ambiguous fault on pods/exec runs
//     the command and answers the client a 504 timeout on the error stream.
//     Over WebSocket (wsconn.go) the same call admits the request; the
//     round tripper's Conn is then a gorilla client connection dialled over
//     an in-memory wsConn, which answers the handshake and plays the
//     kubelet's v5 side: stdin (channel 0) until the client's CLOSE signal,
//     stdout (1), stderr (2), the Status (3), then a close frame; pings get
//     pongs. A refusal is client-go's error for a bad handshake, an
//     UpgradeFailureError carrying the Status (StatusError) or the kubelet's
//     text, on which the fallback executor tries SPDY
//     (TestTheWebSocketExecutorRunsTheHandler,
//     TestAWebSocketExecIsRefusedAsTheKubeletRefusesIt).
//     Outcomes are a function of the plan: same plan, same output.
//
// # Known gaps
//
//   - Watches are served in a testing/synctest bubble only (package process
//     gives the feeds and the settle there); outside one they are refused
//     with a 405 whose message names the resource and says why
//     (TestWatchOverRESTIsRefusedByName). A watch
//     ignores timeoutSeconds (it ends only when the client stops it), serves
//     field selectors on metadata.name and metadata.namespace only (other
//     fields: 400), sends no DELETED when an object stops matching a label
//     selector, and is not checked against RBAC (nor is a resourceVersion=0
//     list). The metadata client's Accept (as=PartialObjectMetadata, or its
//     List) is honoured in protobuf and in JSON, whichever its first clause
//     the server serves names; a request asking for it on the wrong shape
//     (PartialObjectMetadata of a list) gets it all the same, where
//     kube-apiserver answers 406.
//   - Subresources other than status, namespaces/finalize, pods/exec and
//     pods/attach (scale, eviction, binding, pods/log, pods/portforward) are
//     refused with a 405 that names them. Port-forwarding is refused so
//     whichever dialer reaches it (client-go's SPDY dialer, or kubectl's
//     WebSocket tunnel through NewFallbackDialer, which falls back to SPDY
//     on the WebSocket refusal below), before any socket is opened, with
//     one line naming it and why: client-go's PortForwarder listens on a
//     real local socket (net.Listen) and the operator then dials it, I/O
//     that is outside the scheduler and the synctest bubble (not durably
//     blocking), so it cannot run in-process deterministically
//     (TestPortForwardIsRefusedNamingItAndWhy).
//   - Exec and attach: client-go's SPDY executor and its WebSocket executor
//     with protocol v5 are served; a WebSocket executor asking only older
//     protocols (NewWebSocketExecutorForProtocols with v4 and below) gets an
//     UpgradeFailureError naming the gap. The SPDY seam sets the unexported connection
//     field of client-go's SPDY round tripper (k8s.io/streaming's
//     SpdyRoundTripper.conn), pinned by
//     TestTheSPDYRoundTripperKeepsItsConnField. A command runs at once (no
//     virtual time passes in it, beyond the call's latency; it cannot
//     hang), with stdin when it has some only after the client closed stdin
//     (then outside the call's trace step, while the calling task waits),
//     and is not interactive: no TTY resizing, stdout and stderr are written
//     at its end. A request whose query asks for a stream its
//     StreamOptions do not give waits for its context (the kubelet gives up
//     after 30 s). The WrapTransport of the config is the simulator's: a
//     caller that replaces it loses the seam.
//   - OpenAPI: each built-in kind's paths carry every verb the model serves
//     for any kind (kube-apiserver's carry those of the resource's storage);
//     kinds without a list type (Binding, TokenReview, the access reviews,
//     the option kinds) have no paths, where kube-apiserver has the POST of
//     the create-only ones; subresources other than status and
//     namespaces/finalize have none; the v3 discovery lists group versions
//     only (not kube-apiserver's root documents: api, apis, version,
//     .well-known); a custom kind in a built-in group version is left out
//     of its documents, and so is a CRD whose documents apiextensions'
//     builder cannot build (kube-apiserver logs it); the first v2 request with a given set of CRDs
//     costs about 4 s (the merged swagger's protobuf is made by parsing its
//     JSON, as kube-openapi's handler does), later ones of the process none
//     (TestTheAccessReviewsHaveNoOpenAPIPaths).
//   - No aggregated discovery, no Table output
//     (TestNoTableOutputAndNoAggregatedDiscovery), no
//     Retry-After headers (client-go's automatic retry of 429 and 5xx answers
//     is not exercised), and a delete answers a Success Status even when
//     finalizers keep the object (kube-apiserver answers the object then)
//     (TestADeleteKeptByFinalizersAnswersASuccessStatus).
//   - Only the kinds the server serves exist: the built-in kinds of the
//     scheme it was given (a group missing from the scheme is a 404 here),
//     and the CRDs installed (TestAGroupMissingFromTheSchemeIs404).
//   - ctrl.GetConfig, GetConfigOrDie and GetConfigWithContext inside a
//     process reach this transport through process-global seams that a
//     world's testing/synctest bubble sets (sim/process's kubeconfig.go,
//     wallclock.Run): KUBECONFIG names a plain-HTTP server that resolves
//     nowhere and http.DefaultTransport routes its requests to the calling
//     process's Transport. Only the plain requests are served that way:
//     exec and attach through such a config dial a real connection (its
//     config has no WrapTransport) and fail to resolve the host; use
//     mgr.GetConfig() for them. Outside a bubble (the command's catalogue)
//     and in a parallel test, ctrl.GetConfig is not served
//     (sim/process.TestTheKubeconfigTransportServesNoCallerOutsideAProcess).
package restapi
