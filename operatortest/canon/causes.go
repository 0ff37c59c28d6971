package canon

import (
	"encoding/json"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation/field"
)

// invalidObject finds, in an error's text, a refusal by the apiserver's (or
// a webhook's) validation: apierrors.NewInvalid's "<Kind>.<group> "<name>"
// is invalid: <causes>". The kind is read up to what precedes it (a space,
// or the "[" of an aggregate: controller-runtime's reconcilers join the
// errors of one reconcile as "[<refusal>, <conflict>]"), not through it.
var invalidObject = regexp.MustCompile(`([\w.-]+) "([^"]*)" is invalid: `)

// causeHead finds each cause of a refusal: field.Error's "<field path>:
// <type>", its types as apimachinery's field package writes them.
var causeHead = func() *regexp.Regexp {
	var types []string
	for _, t := range []field.ErrorType{field.ErrorTypeNotFound, field.ErrorTypeRequired, field.ErrorTypeDuplicate, field.ErrorTypeInvalid,
		field.ErrorTypeNotSupported, field.ErrorTypeForbidden, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTooFew,
		field.ErrorTypeInternal, field.ErrorTypeTypeInvalid, field.ErrorTypeTooShort} {
		if q := regexp.QuoteMeta(t.String()); !slices.Contains(types, q) {
			types = append(types, q)
		}
	}
	return regexp.MustCompile(`(?:^|\[|, )([^\s:\[,][^\s:]*): (` + strings.Join(types, "|") + `)`)
}()

// ErrorCause is an error at rest as the oracles compare it: by its cause,
// not its text. A refusal by validation (kube-apiserver's, or a webhook's
// that answers with field errors) is the object refused and the set of its
// causes, each a field path, the type of the error and the value refused
// (its detail, which rule the value breaks, aside): "<invalid
// StatefulSet.apps clicks: spec.podManagementPolicy Invalid value
// "Sequential">". kube-apiserver validates a create by the object's own
// rules and an update by those and the transition's (an immutable field
// changed), so one invalid value of the user's, met by a create in one run
// and by an update in another, gives two texts and one cause; which of the
// two an operator meets races with the user's edit. What the operator
// wraps around the refusal ("creating the StatefulSet: ") says which call
// it made, and goes with it. A differing cause (another field, another
// value, another object) is another error. Any other error is its text.
func ErrorCause(text string) string {
	loc := invalidObject.FindAllStringSubmatchIndex(text, -1)
	if loc == nil {
		return text
	}
	var out []string
	for i, m := range loc {
		end := len(text)
		if i+1 < len(loc) {
			end = loc[i+1][0]
		}
		body := text[m[1]:end]
		var causes []string
		heads := causeHead.FindAllStringSubmatchIndex(body, -1)
		for _, h := range heads {
			c := body[h[2]:h[3]] + " " + body[h[4]:h[5]]
			if v := refusedValue(body[h[1]:]); v != "" {
				c += " " + v
			}
			if !slices.Contains(causes, c) {
				causes = append(causes, c)
			}
		}
		if len(causes) == 0 {
			return text // not a refusal with causes this reads
		}
		slices.Sort(causes)
		out = append(out, "<invalid "+text[m[2]:m[3]]+" "+text[m[4]:m[5]]+": "+strings.Join(causes, ", ")+">")
	}
	slices.Sort(out)
	return strings.Join(slices.Compact(out), " ")
}

// refusedValue reads the value a field error names, from the text after its
// type (": "<value>...): a Go-quoted string or a JSON value, as field.Error
// writes them; "" when there is none.
func refusedValue(rest string) string {
	rest, ok := strings.CutPrefix(rest, ": ")
	if !ok || rest == "" {
		return ""
	}
	if rest[0] == '"' {
		if q, err := strconv.QuotedPrefix(rest); err == nil {
			return q
		}
		return ""
	}
	var v json.RawMessage
	d := json.NewDecoder(strings.NewReader(rest))
	if err := d.Decode(&v); err == nil {
		return string(v)
	}
	return ""
}

// ObjectKey names an object as kubectl does: "Kind namespace/name", or
// "Kind name" for a cluster-scoped one.
func ObjectKey(kind, namespace, name string) string {
	if namespace == "" {
		return kind + " " + name
	}
	return kind + " " + namespace + "/" + name
}
