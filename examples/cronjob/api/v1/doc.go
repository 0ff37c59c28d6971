// Package v1 is the API of the example CronJob operator: the CronJob kind of
// group batch.ctrlsim.dev, version v1, laid out as a kubebuilder project lays
// out its api/v1 (types with controller-gen markers, a scheme builder, the
// deep-copy functions). testdata/batch.ctrlsim.dev_cronjobs.yaml is the CRD
// controller-gen generates from these markers.
//
// # Known gaps
//
//   - One version, no conversion; no printer columns or short names
//     (TestTheCRDHasOneVersionAndNoPrinterColumnsOrShortNames).
//   - deepcopy.go is written by hand in the shape controller-gen's object
//     generator gives (no +kubebuilder:object:generate marker, so
//     controller-gen object leaves it alone) (TestTheDeepCopyIsWrittenByHand);
//     TestADeepCopySharesNoMemory checks that a copy shares no memory with
//     its original.
//
// +groupName=batch.ctrlsim.dev
package v1
