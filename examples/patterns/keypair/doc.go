// Package keypair is the smallest operator that mints random key material:
// a KeyPair gets a Secret (<name>-tls) holding an ECDSA P-256 private key
// drawn from crypto/rand and a self-signed certificate for
// spec.commonName (its serial number drawn too), owned by it. It issues a
// certificate through a temporary Secret of generated name
// (<name>-request-xxxxx, the signing request: the key and the common
// name), which it deletes (with any an incarnation that died left) once the
// certificate is in the Secret, and records the request's name and the
// certificate's common name in status.
// A change of the common name issues a new certificate (and key).
//
// The pattern's trap for a test harness: what the operator's randomness
// decides (the key, the serial number and so the certificate's bytes; the
// temporary Secret's name suffix, which kube-apiserver draws) differs
// between two runs that draw differently or that issued a different
// number of times, while which certificate the Secret holds (for which
// common name) does not.
//
// The buggy twin (Buggy) issues a new key and certificate at every
// reconcile, whether the common name changed or not: the Secret is
// rewritten for ever.
//
// # Known gaps
//
//   - The certificate's validity starts at the operator's clock (virtual
//     time), so it differs between two runs that issued at two instants
//     (examples/patterns.TestAKeyPairsCertificateIsSelfSigned).
package keypair
