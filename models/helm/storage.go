package helm

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/clock"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Errors of the storage driver (helm pkg/storage/driver/driver.go).
var (
	ErrReleaseNotFound    = errors.New("release: not found")
	ErrReleaseExists      = errors.New("release: already exists")
	ErrNoDeployedReleases = errors.New("has no deployed releases")
)

// StorageDriverError is an error about one release (driver.StorageDriverError):
// `"<name>" <err>`.
type StorageDriverError struct {
	ReleaseName string
	Err         error
}

func (e *StorageDriverError) Error() string {
	return fmt.Sprintf("%q %s", e.ReleaseName, e.Err.Error())
}

// Unwrap returns the driver error.
func (e *StorageDriverError) Unwrap() error { return e.Err }

func errNoDeployedReleases(name string) error {
	return &StorageDriverError{ReleaseName: name, Err: ErrNoDeployedReleases}
}

// Record Secrets (helm pkg/storage/driver/secrets.go).
const (
	// SecretType is the type of a release record Secret.
	SecretType corev1.SecretType = "helm.sh/release.v1"
	// ReleaseKey is the Secret data key holding the release (plain JSON here).
	ReleaseKey = "release"
)

// systemLabels are the labels the driver sets itself; they are never custom
// labels (secrets.go filterSystemLabels).
var systemLabels = []string{"name", "owner", "status", "version", "createdAt", "modifiedAt"}

// Key is the name of the record Secret of a revision (storage.go makeKey).
func Key(name string, version int) string {
	return fmt.Sprintf("sh.helm.release.v1.%s.v%d", name, version)
}

// Storage is helm's release storage (pkg/storage) on the Secret driver: one
// Secret per revision in one namespace.
type Storage struct {
	client    client.Client // writes
	reader    client.Reader // reads: helm's driver reads the API server, not a cache
	namespace string
	clock     clock.PassiveClock
}

// Get reads one revision: one get.
func (s *Storage) Get(ctx context.Context, name string, version int) (*Release, error) {
	var sec corev1.Secret
	key := Key(name, version)
	if err := s.reader.Get(ctx, client.ObjectKey{Namespace: s.namespace, Name: key}, &sec); err != nil {
		if apierrors.IsNotFound(err) {
			return nil, ErrReleaseNotFound
		}
		return nil, fmt.Errorf("get: failed to get %q: %w", key, err)
	}
	return s.decode(&sec)
}

// History is every revision of a release, oldest first: one list (the driver's
// Query by owner=helm,name=<name>). No revision is ErrReleaseNotFound.
func (s *Storage) History(ctx context.Context, name string) ([]*Release, error) {
	return s.query(ctx, map[string]string{"owner": "helm", "name": name})
}

// Last is the highest revision whatever its status: one list.
func (s *Storage) Last(ctx context.Context, name string) (*Release, error) {
	h, err := s.History(ctx, name)
	if err != nil {
		return nil, err
	}
	return h[len(h)-1], nil
}

// DeployedAll is every revision with status deployed: one list.
func (s *Storage) DeployedAll(ctx context.Context, name string) ([]*Release, error) {
	ls, err := s.query(ctx, map[string]string{"owner": "helm", "name": name, "status": string(StatusDeployed)})
	if errors.Is(err, ErrReleaseNotFound) {
		return nil, errNoDeployedReleases(name)
	}
	return ls, err
}

// Deployed is the highest deployed revision (several can be deployed when
// concurrent writers corrupted the history): one list.
func (s *Storage) Deployed(ctx context.Context, name string) (*Release, error) {
	ls, err := s.DeployedAll(ctx, name)
	if err != nil {
		return nil, err
	}
	return ls[len(ls)-1], nil
}

func (s *Storage) query(ctx context.Context, labels map[string]string) ([]*Release, error) {
	var list corev1.SecretList
	if err := s.reader.List(ctx, &list, client.InNamespace(s.namespace), client.MatchingLabels(labels)); err != nil {
		return nil, fmt.Errorf("list: failed to list: %w", err)
	}
	if len(list.Items) == 0 {
		return nil, ErrReleaseNotFound
	}
	var out []*Release
	for i := range list.Items {
		r, err := s.decode(&list.Items[i])
		if err != nil {
			return nil, fmt.Errorf("query: failed to decode data %q: %w", list.Items[i].Name, err)
		}
		out = append(out, r)
	}
	// The apiserver lists in key order (v10 before v2); helm's callers sort by
	// revision, so do it once here.
	slices.SortStableFunc(out, func(a, b *Release) int { return cmp.Compare(a.Version, b.Version) })
	return out, nil
}

// Create records a new revision: one create. An existing record is
// ErrReleaseExists.
func (s *Storage) Create(ctx context.Context, r *Release) error {
	sec, err := s.record(r, "createdAt")
	if err != nil {
		return err
	}
	if err := s.client.Create(ctx, sec); err != nil {
		if apierrors.IsAlreadyExists(err) {
			return ErrReleaseExists
		}
		return fmt.Errorf("create: failed to create: %w", err)
	}
	r.Created = sec.CreationTimestamp.Time
	return nil
}

// Update rewrites a revision's record: one update, without resourceVersion
// (unconditional, as the driver's Update of a freshly built Secret is).
func (s *Storage) Update(ctx context.Context, r *Release) error {
	sec, err := s.record(r, "modifiedAt")
	if err != nil {
		return err
	}
	if err := s.client.Update(ctx, sec); err != nil {
		return fmt.Errorf("update: failed to update: %w", err)
	}
	return nil
}

// Delete removes a revision's record: a get, then a delete (the driver reads the
// release it returns first).
func (s *Storage) Delete(ctx context.Context, name string, version int) (*Release, error) {
	r, err := s.Get(ctx, name, version)
	if err != nil {
		return nil, err
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: Key(name, version)}}
	if err := s.client.Delete(ctx, sec); err != nil {
		return r, err
	}
	return r, nil
}

// recordData is what the "release" key holds: the release and its custom
// labels, as helm-operator-plugins' chunked driver wraps them (releaseWrapper),
// since custom labels such as an image reference need not be valid label values.
type recordData struct {
	Release *Release          `json:"release"`
	Labels  map[string]string `json:"labels,omitempty"`
}

// record is the Secret of a release: the system labels, the release and its
// custom labels as JSON under "release".
func (s *Storage) record(r *Release, stamp string) (*corev1.Secret, error) {
	data, err := json.Marshal(recordData{Release: r, Labels: r.Labels})
	if err != nil {
		return nil, err
	}
	lbs := map[string]string{
		"name": r.Name, "owner": "helm", "status": string(r.Info.Status), "version": strconv.Itoa(r.Version),
		stamp: strconv.FormatInt(s.clock.Now().Unix(), 10),
	}
	return &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Namespace: s.namespace, Name: Key(r.Name, r.Version), Labels: lbs},
		Type:       SecretType,
		Data:       map[string][]byte{ReleaseKey: data},
	}, nil
}

// ReleaseOf decodes a record Secret (for tests and observers that read records
// without a Storage).
func ReleaseOf(sec *corev1.Secret) (*Release, error) { return decodeRecord(sec) }

// records memoizes decodeRecord across storages and runs: helm decodes every
// revision on each History and Last, and each reconcile builds a Storage of
// its own (as helm-operator-plugins builds an action client per reconcile), so
// a run whose history grows to tens of revisions decoded each of them again on
// every list. A record's data decodes to the same release wherever it is read,
// so the memo is keyed by the data itself; it changes no call and no result.
// It is emptied when it reaches maxRecords.
var records struct {
	mu sync.Mutex
	m  map[string]*Release // by the record's data; Created is not set
}

const maxRecords = 4096

// decode is decodeRecord through the records memo. It returns a copy the
// caller may change.
func (s *Storage) decode(sec *corev1.Secret) (*Release, error) {
	data := sec.Data[ReleaseKey]
	records.mu.Lock()
	r, ok := records.m[string(data)]
	records.mu.Unlock()
	if !ok {
		var err error
		if r, err = decodeRecord(sec); err != nil {
			return nil, err
		}
		r = r.clone()
		records.mu.Lock()
		if records.m == nil || len(records.m) >= maxRecords {
			records.m = make(map[string]*Release)
		}
		records.m[string(data)] = r
		records.mu.Unlock()
	}
	c := r.clone()
	c.Created = sec.CreationTimestamp.Time
	return c, nil
}

func decodeRecord(sec *corev1.Secret) (*Release, error) {
	var d recordData
	if err := json.Unmarshal(sec.Data[ReleaseKey], &d); err != nil {
		return nil, err
	}
	if d.Release == nil {
		return nil, fmt.Errorf("record %q holds no release", sec.Name)
	}
	r := d.Release
	r.Labels = maps.Clone(d.Labels)
	for _, l := range systemLabels {
		delete(r.Labels, l)
	}
	r.Created = sec.CreationTimestamp.Time
	return r, nil
}
