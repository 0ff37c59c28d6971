// Package optest holds the test operators and test worlds that the tests of
// operatortest and of its parts share: the smallest operators that show one
// behaviour each (an app whose ConfigMap makes a child, a ticker, a ledger, a
// gadget CRD drawn from its schema, known bugs), the Options that run them,
// and helpers that judge one plan or run an exploration in a child process.
// It is imported by tests only. The operators are written for the tests that
// use them: a new test may need a new behaviour (optest.Behaviour) rather
// than a new operator.
//
// # Known gaps
//
// None known: the package is fixtures, with no behaviour of its own to fall
// short of.
package optest
