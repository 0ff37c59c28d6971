// Package mapports is the smallest operator that builds a list from a Go
// map: a Frontend's spec.ports (port numbers by name, a map) becomes the
// ports of a Service of its name, owned by it, built by ranging over the
// map. Go randomises map order, so the Service's ports come in a different
// order in every run; spec.ports of a Service is a list of type map (keyed
// by port and protocol), whose order means nothing. The operator compares
// the ports as a set, so that it does not rewrite the Service for an order.
//
// The pattern's trap for a test harness: the list's order differs between
// any two runs, replays of one plan included.
//
// The buggy twin (Buggy) names each port by its position (port-0, port-1,
// ...) as it ranges over the map: which number is called port-0 then
// depends on the map's order, and clients that look ports up by name get a
// different port in every run.
//
// # Known gaps
//
//   - TCP only (examples/patterns.TestMapPortsServicePortsAreTCPOnly).
package mapports
