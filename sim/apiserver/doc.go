// Package apiserver is the API-server model: a kube-apiserver with its storage, its
// registry strategies, NamespaceLifecycle admission and RBAC authorization,
// in-process, single-threaded and deterministic.
//
// Requests are method calls (Get, List, Create, Update, Patch, Delete, DeleteAllOf)
// made as a User. Objects are typed (registered in a runtime.Scheme), or
// *unstructured.Unstructured for custom resources with no Go type, deep-copied
// in and out, and stored as immutable snapshots that the watch log shares.
// kubeclient wraps a Server in a controller-runtime client.Client; informer feeds
// caches from Watcher.
//
// # Contract (each point is pinned by a test in apiserver_test.go)
//
//   - resourceVersion is one global counter; every committed write takes the next
//     value. uid and creationTimestamp are set on create. generateName appends
//     five characters drawn from Options.Rand (retrying collisions like the
//     generic registry).
//
//   - Timestamps are stored as serialization keeps them, on every write path
//     (create, update, status update, each patch type, create on update, the
//     server's creation and deletion timestamps, Events' times): metav1.Time in
//     whole seconds (RFC 3339), metav1.MicroTime in microseconds, wherever they are
//     in the object (times_test.go). So a read, a write's response and a watch
//     event carry what a real server returns, and a write whose only change is
//     below that precision writes nothing, as a real server (comparing serialized
//     bytes) writes nothing.
//
//   - generation follows each kind's strategy: none (ConfigMap, Secret, RBAC,
//     Namespace), spec changes (Pod, ReplicaSet, Job, ...), spec and annotation
//     changes (Deployment), or any change but metadata and status (custom
//     resources). It also goes up by one when an object is first marked deleting.
//
//   - Status subresource: create clears status (before the body is defaulted
//     and validated, as customResourceStrategy.PrepareForCreate drops it: a
//     typed zero status with non-omitempty fields, {"conditions": null}, is
//     not refused; TestCreateDropsStatusBeforeValidating, and
//     internal/differential TestCreateDropsStatusAsKubeAPIServerDoes); Update
//     (and Patch) of the main resource keeps the stored status, taken before
//     the body is validated, as customResourceStrategy.PrepareForUpdate does
//     after decoding: a custom resource's stored status, value for value, is
//     ratcheted as unchanged, so an operator's Update of its whole typed
//     object with a zero status that its CRD requires ({"conditions": null},
//     status.conditions required) is accepted
//     (TestUpdateValidatesTheStoredStatusNotTheRequests, and the same
//     differential test);
//     Update/Patch of "status" keeps the stored spec, and the stored metadata as
//     the kind's status strategy does (Kind.StatusMeta): custom resources keep all
//     of it, most built-in kinds none (labels, annotations, finalizers and
//     ownerReferences come from the request; Deployment keeps its labels, Pod its
//     ownerReferences, the kinds using metav1.ResetObjectMetaForStatus those four).
//     A kind without the subresource answers 404 there.
//
//   - Optimistic concurrency: a stale resourceVersion is a 409 Conflict with the
//     registry's message. An update without resourceVersion overwrites where the
//     strategy allows unconditional updates, and is a 422 elsewhere (custom
//     resources). The object's uid is a precondition of Update.
//
//   - An update that changes nothing writes nothing: no new resourceVersion, no
//     watch event.
//
//   - Deletion: an object with finalizers (its own, or orphan/foregroundDeletion
//     added for the Orphan/Foreground propagation policies) gets deletionTimestamp
//     and grace period 0 and stays; removing its last finalizer deletes it; no new
//     finalizer can be added once it is deleting (422). Delete preconditions (uid,
//     resourceVersion) conflict with the registry's messages. A delete whose
//     propagation policy removes the last (orphan or foregroundDeletion) finalizer
//     fails any resourceVersion precondition with the storage layer's 409, as the
//     generic registry's does (it checks an empty resourceVersion there).
//
//   - Graceful deletion of pods (graceful.go; rest.BeforeDelete, the pod
//     strategy's CheckGracefulDelete and Store.Delete): a delete sets
//     deletionTimestamp to now plus the grace period and
//     deletionGracePeriodSeconds to it, bumps the generation, and keeps the
//     pod Terminating; the period is the delete option's gracePeriodSeconds,
//     else spec.terminationGracePeriodSeconds (defaulted to 30), and 0 for a
//     pod never scheduled (no spec.nodeName) or already Succeeded or Failed
//     (negative: 1). A delete with period 0 writes the deletion (a Modified
//     event) and then removes the pod unless finalizers hold it. A second
//     delete of a Terminating pod may shorten the period (the
//     deletionTimestamp moves back by the difference, never before now; a
//     graceful period that has run out becomes 1s) but not lengthen it
//     (nothing is written); grace 0 ends it. Removing the last finalizer of
//     a pod whose period is not 0 leaves it until its delete with grace 0
//     (the kubelet's: models/kube). graceful_test.go pins each rule.
//
//   - Namespaces: created Active with the kubernetes finalizer and the
//     kubernetes.io/metadata.name label; delete makes them Terminating; the finalize
//     subresource removes spec.finalizers and with it the namespace. default,
//     kube-system and kube-public cannot be deleted. NamespaceLifecycle admission
//     refuses creates in a missing namespace (404) and in a terminating one (403
//     with the real message and the NamespaceTerminating cause).
//
//   - Built-in kinds run kube-apiserver's own code (k8s.io/kubernetes v1.37.2,
//     builtin_validation.go): Pod, PodTemplate, ReplicationController, Service,
//     ConfigMap, Secret, Deployment, ReplicaSet, StatefulSet, DaemonSet,
//     ControllerRevision, Job and CronJob. A body of one of these kinds (create,
//     update, patch result, status write) is defaulted with the v1 defaulters
//     (SetObjectDefaults_*: a Deployment's replicas and strategy, a container's
//     imagePullPolicy, a Service's sessionAffinity, a Job's completions, ...), as
//     kube-apiserver's decoder does, before admission and again after a mutating
//     webhook. On create it is converted to the internal type and goes through
//     the registry strategy as rest.BeforeCreate does it: PrepareForCreate (the
//     Pod's phase Pending and QoS class, the Job's generated selector and
//     job-name/controller-uid labels, status reset, generation 1),
//     rest.ValidateCreate (the strategy's Validate, the common metadata checks,
//     declarative validation) and Canonicalize; it is stored converted back
//     (a Secret's stringData merged into data) and defaulted again, as storage
//     decodes it (a Job without labels gets its template's). On update the
//     model's own PrepareForUpdate (below) prepares it, then rest.ValidateUpdate
//     runs with the strategy of the main resource or of the status subresource.
//     A refusal is the registry's 422 with kube-apiserver's causes, listed in
//     field order (validation walks labels, annotations and data keys in Go map
//     order; the model must not), checked against kube-apiserver by
//     internal/differential (builtin_validation_test.go, TestBuiltin*). The
//     validation runs with kube-apiserver's default feature gates, and with
//     --allow-privileged=true as kubeadm, kind, envtest and the managed
//     clusters run it (SetAllowPrivileged(false) is kube-apiserver's own
//     flag default: a privileged container is "disallowed by cluster
//     policy"). Where else kube-apiserver's flag defaults differ from
//     kubeadm's and kind's, the model is kubeadm's: RBAC authorization
//     (AlwaysAllow is the flag's default), the service CIDR 10.96.0.0/12
//     (serviceip.go; 10.0.0.0/24 is the flag's); kubeadm's NodeRestriction
//     admission is not modelled (Known gaps).
//
//   - Pods: PodTopologyLabels admission: a pod created with spec.nodeName gets
//     the Node's topology.kubernetes.io/zone and region labels (no binding
//     subresource, its other path).
//
//   - RBAC: every request is authorized for its User against the live
//     (Cluster)Role(Binding)s (package rbac); denial is the real 403.
//
//   - Patches: JSON merge, strategic merge (built-in kinds only; 415 for custom
//     resources, as a real server answers), JSON patch (package patch). A
//     resourceVersion in the patch is a precondition.
//
//   - Server-side apply and managedFields (fieldmanager.go, apply.go) run
//     kube-apiserver's field manager (k8s.io/apimachinery's managedfields
//     over structured-merge-diff), built per kind and subresource as a
//     request scope builds it: NewDefaultFieldManager for built-in kinds
//     (types from client-go's structured-merge-diff schema of k8s.io/api),
//     NewDefaultCRDFieldManager for custom resources (types from the CRD's
//     schema through apiextensions' builder.BuildOpenAPIV3, as the CRD
//     handler does), with the strategies' reset fields (kube-apiserver's
//     GetResetFields for the hosted kinds; status for a main resource and
//     metadata and spec for a custom resource's status otherwise). Every
//     create, update and non-apply patch records its field manager's
//     Update entry (FieldManager.UpdateNoErrors), the manager being the
//     request's fieldManager or the User-Agent's prefix (User.Agent, a
//     process's name; managerOrUserAgent); client-supplied managedFields are
//     taken as the field manager takes them (an empty list resets them). A
//     PATCH of type application/apply-patch+yaml (PatchWith; kubeclient's
//     Patch with client.Apply, Apply and SubResource(...).Apply) requires a
//     fieldManager (422), merges the applied configuration by field
//     ownership: a field another manager owns with another value is a 409
//     "Apply failed with N conflict(s): conflict with \"m\" ...: .path"
//     unless Force, and a field its manager applied before and no longer
//     applies is removed unless another manager owns it; a missing object is
//     created from it (not through status: 404), one whose configuration has a
//     uid is a 409 "uid mismatch". An identical apply writes nothing. The
//     managedFields times are the virtual clock's (the field manager stamps
//     the wall clock's; the stamped entries are re-timed and sorted again by
//     upstream's order). Checked against kube-apiserver by internal/differential
//     TestServerSideApplyMatchesKubeAPIServer (managers, operations, versions,
//     subresources and field sets, conflict messages; times apart). A
//     create of a built-in kind is remembered per scheme (fieldmemo.go): the
//     same request bytes by the same manager in a later run get the
//     managedFields the field manager gave them, re-timed (the field
//     manager's Update of a create is a function of those; a create whose
//     output differs from its request in more than managedFields is never
//     remembered), as every run re-creates the default namespaces, the
//     seeds and mostly the same children
//     (TestARememberedCreateRecordsTheSameManagedFieldsAsAComputedOne). A
//     remembered create draws from math/rand's global generator the one
//     value the field manager's create draws (SetCreateDraw, which the
//     world sets), since code under test draws from it too
//     (TestARememberedCreateDrawsWhatAComputedOneDraws). An update is
//     remembered by the kind's field manager the same way, under a digest
//     of the manager, the subresource and the live and request objects'
//     bytes (each plan's references and every plan until its first fault
//     repeat the same updates; an update draws nothing), re-timed on a hit
//     (TestARememberedUpdateRecordsTheSameManagedFieldsAsAComputedOne).
//     What kube-apiserver builds once per CRD (the structural schema, the
//     validators, the CEL programs, the field manager's type converter) is
//     built once per CRD content for every server of the process
//     (schemacache.go; TestEveryServerOfACRDValidatesWithItsOwnSchema), and a
//     write that schema admitted is remembered under a digest of the request's
//     and the old object's bytes (admitmemo.go): the same write in a later run
//     gets the pruned and defaulted object without a second validation; a
//     refused write is judged each time. A custom kind's updates share one
//     field-manager memo per type converter (fieldmemo.go's updateMemo).
//
//   - List: label selectors, metadata.name/metadata.namespace field selectors
//     (plus status.phase for Namespace and Pod, type for Secret; others are a 400),
//     namespace scoping, Limit/Continue, in etcd key order ("namespace/name" as one
//     string).
//
//   - The watch log records every committed change as an Event; Watcher.Watch
//     delivers them synchronously in resourceVersion order, a Deleted event
//     carrying the last stored state with the deletion's resourceVersion. When an
//     update or patch removes the last finalizer, that state is the one before it
//     (finalizers and all): the update is not written, the stored object is deleted.
//     The log is kept whole, so a lagging watch cache can be served from it
//     (past.go): Watcher.ListAsOf is a kind's state as of a time,
//     Watcher.ListAtRV as of a resourceVersion (the state just before the next
//     write, exact where two writes share an instant), EventsAfter the changes
//     since.
//
//   - Dry run (WriteOptions.DryRun, client.DeleteOptions.DryRun: "All"; any
//     other value is kube-apiserver's 422 of its option validation): the
//     write is authorized, admitted (webhook admission is told:
//     AdmissionAttributes.DryRun), defaulted, validated and answered as it
//     would be, and nothing is stored, as k8s.io/apiserver's
//     DryRunnableStorage stores nothing: no resourceVersion spent, no watch
//     event, no Service address kept. A create answers the object with its
//     uid, time and generated name and no resourceVersion; an update, a
//     patch or an apply the changed object at the stored resourceVersion; a
//     delete deletes nothing (TestADryRunWriteIsAnsweredAndStoresNothing,
//     TestADryRunIsJudgedAndOnlyAllIsServed; against kube-apiserver:
//     internal/differential TestDryRunMatchesKubeAPIServer).
//
//   - Injected faults (InjectFault): by verb, resource, subresource, namespace and
//     name, a 403/409/422/429/500/503/504 before the request takes effect, or an
//     ambiguous write: applied, then reported to the client as a 504 timeout.
//
//   - Unknown kinds: a type missing from the scheme fails with runtime's
//     not-registered error; a custom resource whose CRD is not installed with a
//     *meta.NoKindMatchError. Requests for a namespaced kind without a namespace
//     (other than list) get the 404 of a route that does not exist.
//
//   - Type rules the model reproduces itself for kinds outside the list above:
//     Namespace defaults, RoleBinding/ClusterRoleBinding validation (roleRef,
//     subjects, with the v1 defaults) and roleRef immutability, RBAC names as
//     path segments; and for all kinds create-on-update where the strategy
//     allows it (RBAC objects, Lease, Service, Endpoints, Event, LimitRange,
//     RuntimeClass).
//
//   - Custom resources with a schema (a CRD's openAPIV3Schema: CRD.Schema, or a
//     manifest read by CRDsFromYAML): every create, update, patch and status write is
//     pruned, defaulted and validated with k8s.io/apiextensions-apiserver's own
//     structural pruning, structural defaulting, OpenAPI schema validator (with
//     CRDValidationRatcheting on update), embedded-object and list-type checks, on
//     the object's wire form, and refused with the real 422 (checked byte for byte
//     against kube-apiserver by internal/differential
//     TestCRDSchemaValidationAndDefaultingMatchKubeAPIServer); then its
//     x-kubernetes-validations (CEL) rules, with apiextensions' own CEL validator
//     (transition rules against the stored object, ratcheted on update), unless
//     a blocking error came first, as customResourceStrategy does
//     (TestCELRulesAreEvaluated; the refusals checked byte for byte against
//     kube-apiserver by internal/differential TestCELValidationMatchesKubeAPIServer).
//
//   - A CRD is checked as kube-apiserver checks it, with apiextensions' own
//     validation (pkg/apis/apiextensions/validation
//     ValidateCustomResourceDefinition, on the CRD with its v1 defaults and
//     the registry's PrepareForCreate; ValidateCustomResourceDefinitionUpdate
//     and the status one for updates), before its kind is served: a
//     CustomResourceDefinition object created or updated through the API
//     (crdserve.go), and a manifest or definition given to a world
//     (CRDsFromYAML, CRDFromDefinition: checked as a create). One that
//     kube-apiserver refuses (a schema that is not structural, an unknown
//     type, an x-kubernetes-validations rule or messageExpression that does
//     not compile or is not a bool, oldSelf where no old value correlates,
//     ...) is refused with its 422, which names the CRD (CRDsFromYAML adds
//     the document's place), not at the first object of its kind
//     (TestACRDManifestKubeAPIServerRefusesIsRefused; checked against
//     kube-apiserver by internal/differential
//     TestInvalidCRDsAreRefusedAsKubeAPIServerRefusesThem).
//
//   - Custom resources with no Go type (a CRD manifest only: InstallCRD of a GVK
//     the scheme does not know; Kind.Unstructured) are stored and served as
//     *unstructured.Unstructured, as the custom resource handler serves every
//     custom resource: requests take Unstructured objects and lists naming the
//     kind (a missing apiVersion/kind is runtime's error, an unserved kind the
//     RESTMapper's), answers and watch events carry apiVersion/kind (a list
//     <Kind>List). A body reaches storage as its JSON (numbers int64 or float64
//     as the unstructured decoder gives them, whatever Go values the client
//     held), read as the handler's schemaCoercingDecoder reads it (metadata
//     decoded, malformed metadata the 400 `Gadget in version "v1" cannot be
//     handled as a Gadget: ...`, unknown fields and non-nullable nulls pruned),
//     then defaulted and validated as above. The custom resource strategies
//     apply as to typed ones (status dropped on create and kept by the main
//     resource, the status subresource changing status only, generation on any
//     change but metadata and status), and so do the verbs: update
//     preconditions, merge and JSON patches (strategic merge is 415), deletion
//     and finalizers. internal/differential (unstructured_test.go) checks these
//     byte for byte against kube-apiserver with a CRD installed from its
//     manifest.
//
//   - CustomResourceDefinition objects (apiextensions.k8s.io/v1, served when the
//     scheme has the type; operatortest registers it): created, read, updated,
//     patched and deleted as kube-apiserver's CRD registry does (v1 defaults,
//     apiextensions' own validation, status reset and storedVersions on create,
//     spec-only generation), and followed by what its controllers do, after a
//     delay of 1 to 100 ms drawn from Options.Delays on Options.Later's clock
//     (crdserve.go): the naming controller accepts the names (NamesAccepted
//     True, the kind served from then), the establishing controller sets
//     Established True at the same instant; the first delete adds the
//     customresourcecleanup finalizer and Terminating (creates of the kind are
//     then refused with the handler's forbidCreateAdmission 403), the
//     finalizer controller deletes the kind's objects, polls every 5 s until
//     they are gone, removes its finalizer, and the kind is no longer served.
//     A spec change of an established CRD serves its new schema at once
//     (TestACRDCreatedThroughTheClientsetIsServedThenDeletedWithItsObjects in
//     sim/restapi). Checked against kube-apiserver by internal/differential
//     TestCRDLifecycleMatchesKubeAPIServer: the CRD's defaults and status,
//     its conditions (types, statuses, reasons, messages; not their timing),
//     accepted names, the kind's objects validated and defaulted before and
//     after a schema change and a new printer column, the deletion's
//     finalizer and conditions, creates refused while terminating, the held
//     object, and the 404 once the kind is gone.
//
//   - Several versions of one custom resource (versions.go; a CRD given
//     with its Definition, as CRDsFromYAML and CustomResourceDefinition
//     objects give it): each served version is a Kind of its own, with its
//     own schema (the requests made in it are pruned, defaulted and
//     validated with it; a status write validates the status alone against
//     the status property's schema, as statusStrategy does), sharing one
//     store whose objects are in the storage version. A read in another
//     version (get, list items, watch events) converts the stored object:
//     defaulted with the storage version's schema, converted with the
//     CRD's strategy (None: apiextensions' own crConverter and
//     nopConverter, which rewrite the apiVersion; Webhook: the Converter
//     given with SetConverter, package process's Webhooks.Convert), then
//     pruned with the target version's schema (schemaCoercingConverter).
//     A write in another version is admitted in its version, converted to
//     the storage version (pruned and defaulted with its schema) and
//     stored; its answer is the stored object read back. A read whose
//     conversion fails is kube-apiserver's 500 "StorageError: corrupt
//     object, Code: 7, Key: ..., object not decodable revision=N: <the
//     converter's error>"; a write's, a 500 with the converter's message
//     and no reason. status.storedVersions lists the storage version. A
//     watch of a non-storage version receives each change converted (one
//     conversion per watched version, as one watch cache per version
//     does); while its conversion fails the version's watches stall, the
//     server retries every RetryConversion of virtual time and at each
//     later commit, and delivers the stalled changes in order once they
//     convert. The watch log holds changes in the storage version;
//     StoredKinds lists each kind once, as stored. Checked byte for byte
//     (after normalising uids, resourceVersions, times and the webhook's
//     address) against kube-apiserver by internal/differential
//     TestMultiVersionCRDMatchesKubeAPIServer: both strategies, creates,
//     reads, lists, updates, status writes, patches and deletes in one
//     version and the other, each version's validation, the watch of
//     v1alpha1, storedVersions, and with the webhook down.
//
//   - Webhook admission (SetWebhookAdmission; package process serves it with
//     the handlers managers register): mutating webhooks after
//     authorization and NamespaceLifecycle, before the strategy; validating
//     webhooks after the strategy's and the schema's validation, before
//     storage; for creates, updates, patches (UPDATE), status and other
//     subresource writes (the rules say which) and deletes
//     (admission_webhook.go). Their warnings are the request's (Warn,
//     TakeWarnings: deduplicated, as k8s.io/apiserver's warning recorder
//     does, without its 4 KiB truncation); kubeclient hands them to its
//     WarningHandler. Other tasks write while a webhook call waits: an
//     update, patch or delete whose stored object changed meanwhile runs
//     again on the object as it is now, webhooks and all, as etcd's
//     compare-and-swap makes GuaranteedUpdate retry (an update naming the
//     old resourceVersion then gets the Conflict; a patch is applied again;
//     admission_wait.go), so a write that waited never overwrites one made
//     during its wait.
//
//   - Request order as in the real handler chain: authorization before routing
//     (an unserved subresource is 403 to the unauthorized, 404 to others), the
//     patch media type before the object is read.
//
// The differential suite (internal/differential, make test-envtest) runs
// generated operation sequences against this model and a real kube-apiserver and
// pins each remaining divergence as a TestKnownGap* test. The built-in kind
// tables (scope, status subresource, generation policy, unconditional updates)
// cover the common kinds of k8s.io/api; that suite is their check too.
//
// # Known gaps
//
//   - Kinds without kube-apiserver's validation and defaulting here (only
//     their metadata is validated, and the rules above): every built-in kind
//     outside the list above, among them Namespace, Node, Endpoints,
//     EndpointSlice, Event, ServiceAccount, PersistentVolume(Claim), LimitRange,
//     ResourceQuota, Lease, Ingress, NetworkPolicy, HorizontalPodAutoscaler,
//     PodDisruptionBudget, PriorityClass, StorageClass, RuntimeClass, the RBAC
//     kinds beyond bindings, and the admissionregistration and certificates
//     groups (TestALeaseIsValidatedForItsMetadataOnly).
//   - For the hosted kinds: on update the model prepares the object itself
//     (status kept, generation, Secret stringData) rather than through the
//     strategy's PrepareForUpdate, so what the latter drops or fills on update
//     (disabled fields) is not modelled; no
//     warnings (WarningsOnCreate/Update) reach the client. Services' cluster
//     IPs and node ports are the service registry's logic re-written for a
//     single-stack IPv4 cluster (serviceip.go; the registry's allocators are
//     unexported): no dual-stack, no ServiceCIDR or IPAddress objects, and
//     the next free address or port comes from a hash of the Service's name,
//     not at random; the
//     Priority and DefaultTolerationSeconds admission plugins do not run (no
//     spec.priority, preemptionPolicy or default tolerations on pods)
//     (TestAServicesAddressDoesNotDependOnTheOrderServicesAreMade,
//     TestAPodGetsNoPriorityAndNoDefaultTolerations).
//   - No pods/binding subresource: an update may set spec.nodeName of a pod
//     that has none (validated as if a binding had set it; models' scheduler
//     binds so), which kube-apiserver refuses ("pod updates may not change
//     fields other than ..."); the binding's PodScheduled condition is not set
//     (TestAnUpdateBindsAPodWithoutABindingAndNoPodScheduledCondition).
//   - Stored times keep the location the client gave them (the clock's UTC for
//     the server's own); a real client decodes them in time.Local. Instants and
//     serializations are the same
//     (TestAStoredTimeKeepsTheLocationTheClientGaveIt).
//   - Objects of kinds with a Go type are typed Go values, not JSON: an empty map
//     stays empty where a real server would return it absent
//     (TestAnEmptyMapStaysEmptyNotAbsent), and for custom
//     resources with a Go type (stored as JSON by a real server) a write that only
//     adds a zero value or an empty status is a no-op here and a real write there
//     (internal/differential.TestKnownGapCustomResourceZeroValuesAreWrites).
//     Custom resources without a Go type are JSON, as there.
//   - Unstructured custom resources: no warnings for the fields pruned (a real
//     server sends `unknown field` warnings), and fieldValidation Strict does not
//     refuse them; a patch's own duplicate fields are the only strict errors
//     (TestAFieldPrunedFromAnUnstructuredWriteGivesNoWarning).
//   - Graceful deletion for Pods only (upstream's only graceful strategy
//     among the served kinds); no garbage collector here (ownerReferences
//     are stored and validated; models/ runs the collector); no default GC
//     policies other than background. A pod bound to a node no kubelet
//     serves stays Terminating until deleted with grace 0, as on a real
//     cluster; the pod garbage collector (which force-deletes the pods of
//     absent or out-of-service nodes) is not modelled
//     (TestAPodOfANodeNoKubeletServesStaysTerminating).
//   - CRD objects: names are always accepted (no KindConflict or
//     ListKindConflict between CRDs), NamesAccepted and Established come at
//     the same instant (kube-apiserver: two controllers, milliseconds apart;
//     5 s with several apiservers), the finalizer's poll has no 1-minute
//     timeout and requeue, a change of names or storage version of an
//     established CRD is not modelled (a new storage version drops the
//     stored objects instead of keeping them in the old one), and
//     CRDs given in Options.CRDs (InstallCRD) are served but are not
//     CustomResourceDefinition objects (a client lists none for them:
//     TestCRDsGivenInOptionsAreNoCustomResourceDefinitionObjects). The
//     printer columns are stored but not served (no Table output). A CRD
//     value given to Options.CRDs or InstallCRD is not checked again (every
//     run's server installs the same CRDs): one built by CRDsFromYAML or
//     CRDFromDefinition was checked there; one written by hand (a bare CRD,
//     GVK, names and Schema without a Definition, or a Definition set
//     directly) only for its schema's structure, and a schema error shows at
//     the first object of its kind.
//   - CRD schemas: a write refused for several causes lists them in field order;
//     kube-apiserver lists them in the order its validator meets them, which
//     follows Go map iteration and varies from request to request
//     (TestSeveralCausesComeInFieldOrder). CEL rules
//     run with the runtime cost budget but no per-request deadline; a status
//     write checks them over the whole object, as upstream's status strategy
//     does, but the differential suite compares main-resource writes only.
//     Defaults are applied on write (and to the stored object an update is
//     validated against and keeps the status of, as the handler's storage
//     decoder reads it), not on a read of objects stored before a default was
//     added; no x-kubernetes-preserve-unknown-fields warnings,
//     no scale subresource.
//   - Several versions: a CRD given as a bare CRD (InstallCRD without a
//     Definition) serves one version (TestABareCRDServesItsOneVersion).
//     Objects are stored converted and
//     defaulted (kube-apiserver stores the converted JSON and defaults on
//     every decode: the same reads, unless a default changes later). A
//     watch of a non-storage version whose conversion fails stalls rather
//     than ending (a real watch cache relists, and the clients' watches may
//     be closed); an informer that lists such a version while its
//     conversion fails gets an empty list at resourceVersion 0 and the
//     objects as added events once they convert (a real informer waits for
//     its list); ListAsOf and EventsAfter (stale views) know only the
//     storage version. Conversion webhook calls of a list are one per
//     object (kube-apiserver's watch cache decodes each object alone; a
//     list served from etcd sends them in one review). A status write
//     does not skip the embedded-object metadata check as statusStrategy
//     does.
//   - Webhook admission: a mutating webhook sees a custom resource before
//     its schema's defaults (kube-apiserver defaults on decode, before
//     admission: TestAMutatingWebhookSeesACustomResourceBeforeItsSchemasDefaults);
//     no reinvocation (reinvocationPolicy IfNeeded), no
//     matchPolicy Equivalent (rules match the request's own version), no
//     matchConditions; validating webhooks run one after another and the
//     first denial wins (kube-apiserver runs them in parallel).
//   - Server-side apply: application/apply-patch+cbor is refused (415, as with
//     the CBOR feature gate off: TestAnApplyInCBORIsRefused); fieldValidation
//     is not applied to apply bodies (no strict-decoding warnings or 400); a
//     mutating webhook's
//     changes are not attributed; managedFields of another version of a
//     multi-version CRD are converted by relabelling (the None strategy's
//     conversion, also for a webhook strategy); built-in kinds outside the
//     hosted list reset status/spec by the generic rule above rather than
//     their own strategy's; namespaces/finalize keeps the stored
//     managedFields. The managedFields times are in whole seconds of the
//     virtual clock.
//   - fieldValidation (WriteOptions holds the options served), watch
//     bookmarks, resourceVersion semantics of Get/List
//     (resourceVersionMatch), deletecollection across all namespaces, and
//     subresources other than status and namespaces/finalize are not
//     modelled (TestAWriteHasNoFieldValidationAndScaleIsNotServed).
//   - Informers list and watch through Watcher without authorization: a process
//     that loses RBAC keeps receiving events (a real informer's watch would fail and
//     its relists be denied) (TestTheWatcherListsWithoutAuthorization).
//   - Admission plugins other than NamespaceLifecycle, PodTopologyLabels,
//     StorageObjectInUseProtection and the webhook plugins (no
//     ValidatingAdmissionPolicy, quotas, limit ranges, ServiceAccount
//     admission: TestAResourceQuotaLimitsNothing); no aggregated
//     ClusterRoles, no bootstrap RBAC policy.
//     StorageObjectInUseProtection is kube-apiserver's own plugin, hosted
//     (admission_storage.go), but off until SetStorageObjectInUseProtection
//     turns it on (kcm.Setup does, with the pvc-protection controller that
//     removes its finalizer): a world without that controller runs as a
//     cluster with the plugin disabled, its claims and volumes created
//     without kubernetes.io/pvc-protection and pv-protection. It runs on
//     create only, not on a create by update or apply.
package apiserver
