package plan

import (
	"fmt"
	"strconv"
	"strings"
)

// ObjectArg is the argument by which a workload step names one of the world's
// seed objects: by its index among them ("object=0", the form generators
// draw) or by its kind and name ("object=ConfigMap/default/x", the form an
// author thinks in; "object=Namespace/team-a" for a cluster-scoped object).
const ObjectArg = "object"

// ObjectName is the name form of a seed object in a plan: "Kind/namespace/name",
// or "Kind/name" when cluster-scoped.
func ObjectName(kind, namespace, name string) string {
	if namespace == "" {
		return kind + "/" + name
	}
	return kind + "/" + namespace + "/" + name
}

// ObjectIndex resolves an object= value against the seed objects' names (in
// index order, ObjectName's form): an index as it is, a name to its index.
func ObjectIndex(value string, names []string) (int, error) {
	if i, err := strconv.Atoi(value); err == nil {
		if i < 0 || i >= len(names) {
			return 0, fmt.Errorf("object=%s: want 0..%d, the index of a seed object, or its Kind/namespace/name", value, len(names)-1)
		}
		return i, nil
	}
	for i, n := range names {
		if n == value {
			return i, nil
		}
	}
	// A kind given in another case, or a name without its kind, is a slip
	// worth naming.
	var near []string
	for _, n := range names {
		if strings.EqualFold(n, value) || strings.HasSuffix(n, "/"+value) {
			near = append(near, n)
		}
	}
	if len(near) > 0 {
		return 0, fmt.Errorf("object=%s: no seed object has that name; did you mean %s?", value, strings.Join(near, " or "))
	}
	return 0, fmt.Errorf("object=%s: no seed object has that name (the seed objects: %s)", value, strings.Join(names, ", "))
}

// NameObjects is p with each step's object= index replaced by the seed
// object's name (names in index order): the form a failure prints and saves,
// which IndexObjects reads back. A value that is not an index in range is
// left as it is. p is not changed.
func NameObjects(p *Plan, names []string) *Plan {
	return mapObjects(p, func(v string) (string, error) {
		if i, err := strconv.Atoi(v); err == nil && i >= 0 && i < len(names) {
			return names[i], nil
		}
		return v, nil
	})
}

// IndexObjects is p with each step's object= name replaced by the seed
// object's index (names in index order), the form a world runs: a plan that
// names its objects and one that indexes them run alike. An index stays; an
// unknown name is an error. p is not changed.
func IndexObjects(p *Plan, names []string) (*Plan, error) {
	return mapObjectsErr(p, func(v string) (string, error) {
		i, err := ObjectIndex(v, names)
		if err != nil {
			return "", err
		}
		return strconv.Itoa(i), nil
	})
}

func mapObjects(p *Plan, f func(string) (string, error)) *Plan {
	q, _ := mapObjectsErr(p, f)
	return q
}

func mapObjectsErr(p *Plan, f func(string) (string, error)) (*Plan, error) {
	q := *p
	q.Steps = make([]Step, len(p.Steps))
	for i, s := range p.Steps {
		q.Steps[i] = s
		for j, a := range s.Args {
			if a.Key != ObjectArg {
				continue
			}
			v, err := f(a.Value)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", s.String(), err)
			}
			if v != a.Value {
				args := append(Args(nil), s.Args...)
				args[j].Value = v
				q.Steps[i].Args = args
				s.Args = args
			}
		}
	}
	return &q, nil
}
