package apiservertest

import "k8s.io/apimachinery/pkg/runtime/schema"

// GaugeManifest is a CRD with x-kubernetes-validations rules: one over two
// fields of spec, one with the default message on a field, a transition rule
// (oldSelf), and a maxLength that blocks the rules. Gauge has no Go type: it
// is served as unstructured.Unstructured.
const GaugeManifest = `apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gauges.test.ctrlsim.dev
spec:
  group: test.ctrlsim.dev
  names: {kind: Gauge, listKind: GaugeList, plural: gauges, singular: gauge}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            x-kubernetes-validations:
            - rule: self.min <= self.max
              message: min must not exceed max
            properties:
              min: {type: integer}
              max: {type: integer}
              unit:
                type: string
                maxLength: 8
                x-kubernetes-validations:
                - rule: self.startsWith('u')
              zone:
                type: string
                x-kubernetes-validations:
                - rule: self == oldSelf
                  message: zone is immutable
`

// GaugeGVK is Gauge's kind.
var GaugeGVK = schema.GroupVersionKind{Group: "test.ctrlsim.dev", Version: "v1", Kind: "Gauge"}
