// Package workload draws a plan's workload, Acto's way (the seed objects
// mutated from their CRD schemas with package schemadraw's values, deleted
// and re-created, and the author's domain steps), and runs the user's steps
// in a world: the script's and the drawn ones, as one user with kubectl or
// a GitOps tool would (Actions).
//
// # The workload
//
// A plan's workload is the author's script (Options.Workload.Script: Create,
// Patch and Delete at given times, run by the harness as cluster admin,
// never crashed or stalled, never shrunk away, written in the plan's text as
// "script at ..." lines so that a saved plan replays it) and steps drawn over
// the seed objects (workload.go: mutations from the CRD schemas, valid or
// invalid, deletions, re-creations; Options.Workload.Objects and .Steps
// choose which objects and which kinds; by default the operator's own
// objects, its seed custom resources and the seeds they own, and not the
// seeds of built-in kinds that are the cluster's set-up, theOperators). One user runs them all, as a person
// with kubectl or a GitOps tool does: the steps on one object in their
// order, each until it has landed. A create or re-creation that meets the old
// object still being deleted (AlreadyExists while a finalizer holds it) is
// retried after 1s, 2s, 4s, ... up to 10s between tries, until it lands or the
// heal budget ends; a scripted step also retries transient errors (429, 500,
// 503, 504, timeouts); later steps on that object wait and run right after
// it. The timeline says each of these ("pending: AlreadyExists: ... is still
// being deleted (finalizers [...]); tried again in 1s", "pending: waits for
// the recreate of ...", "error: given up, ..."). A step the API refuses
// otherwise is a line of the timeline, never a violation.
//
// # Known gaps
//
//   - The drawn workload (workload.go; the values: package schemadraw) changes the seed
//     objects only, at most MaxSteps steps a plan (the script adds its own):
//     under spec of a seed custom resource, it sets a field (scalars; nested
//     objects, lists and maps as a whole), appends, replaces or removes a list item, or sets or removes a
//     map key; it deletes a seed object or re-creates it. It creates no new
//     objects and changes no status or metadata
//     (TestTheDrawnWorkloadChangesOnlyTheSeedObjectsSpecs). Values are drawn from type,
//     enum, pattern (regexp/syntax, repetitions bounded), minLength,
//     maxLength, the formats the apiserver checks (date-time, date, duration,
//     uuid, ipv4, ipv6, cidr, mac, hostname, email, uri, byte, password,
//     k8s-short-name, k8s-long-name; the other formats it checks are drawn
//     as plain strings and labelled unknown),
//     minimum, maximum and their exclusive forms, multipleOf (integral ones;
//     a fractional one is labelled unknown), int-or-string, required,
//     minItems, maxItems, list-type set and map, minProperties and
//     maxProperties; nesting stops at depth 4, and fields of an object the
//     seed lacks are set with the object as a whole. x-kubernetes-validations
//     (CEL) rules, allOf/anyOf/oneOf/not are not drawn from: a value under one
//     is labelled unknown when valid by the rest (the apiserver model
//     evaluates CEL rules and decides; TestWorkloadUnderACELRuleIsNotClaimedValid).
//     Embedded resources and fields that preserve unknown fields are left
//     alone (operatortest/schemadraw.TestEmbeddedAndPreservedFieldsAreNotDrawable). A label holds for the seed as
//     the test gave it, not for the state that earlier steps leave.
//     InvalidMutations alone draws from the places whose drawing can break a
//     constraint (found by drawing each place a few times).
//   - The script's patches are JSON merge patches only (no strategic merge
//     or JSON patch; TestAScriptedPatchIsAJSONMergePatch), and it cannot wait for a condition (a rollout), only
//     for a time. A hand-written api fault without process= also fails the
//     script's requests: they are retried while it lasts when transient,
//     refused otherwise (TestAScriptedStepRetriesTransientErrorsUntilItLands). Its retries are a fixed back-off (1s doubling to
//     10s), not a particular GitOps tool's.
package workload
