// Package schemadraw draws values from a CRD's OpenAPI v3 schema, as the
// apiserver validates them (k8s.io/apiextensions-apiserver
// pkg/apiserver/validation with kube-openapi's validator and formats,
// schema/listtype for list types), for the workload's mutations of seed
// objects (operatortest's workload.go). A valid value is within every
// constraint of its schema (type, enum, pattern, minLength, maxLength,
// format, minimum, maximum and their exclusive forms, multipleOf, required,
// minItems, maxItems, minProperties, maxProperties, list-type set); an
// invalid one is outside at least one, so the API must refuse it with 422.
// A valid draw is "sure" only when nothing the drawing does not model
// applies to it: x-kubernetes-validations (CEL) rules, allOf/anyOf/oneOf/not,
// a format without a generator here, a pattern no drawn string met. Each
// draw is labelled (ExpectValid, ExpectInvalid, ExpectUnknown) with what the
// API answers when it is applied to the seed as the test gave it.
//
// # Known gaps
//
//   - Patterns are drawn through regexp/syntax with repetitions bounded;
//     the formats drawn are those the apiserver checks (date-time, date,
//     duration, uuid, ipv4, ipv6, cidr, mac, hostname, email, uri, byte,
//     password, k8s-short-name, k8s-long-name); the other formats it checks
//     (hexcolor, isbn, ...) are drawn as plain strings and labelled unknown,
//     and so is a fractional multipleOf
//     (TestAFormatNotGeneratedAndAFractionalMultipleOfAreNotSure).
//   - Nesting stops at depth MaxDepth (4) (TestNestingStopsAtMaxDepth).
//   - x-kubernetes-validations (CEL) rules, allOf/anyOf/oneOf/not are not
//     drawn from: a value under one is labelled unknown when valid by the
//     rest (the apiserver model evaluates CEL rules and decides;
//     TestADrawUnderACELRuleIsNotSure).
//   - Embedded resources and fields that preserve unknown fields are not
//     drawn (Drawable; TestEmbeddedAndPreservedFieldsAreNotDrawable).
package schemadraw
