package k8s

import (
	"errors"
	"fmt"
)

// Sentinel errors for data conditions; an *ObjectError wraps one of them,
// or the Kubernetes error itself (a bad quantity wraps
// resource.ErrFormatWrong, resource.ErrSuffix or resource.ErrNumeric).
var (
	ErrNoInput   = errors.New("k8s: no input paths")
	ErrMalformed = errors.New("k8s: malformed object")
	ErrDuplicate = errors.New("k8s: duplicate object with a different UID")
)

// ObjectError says where a bad object is: its file, its item in the file,
// the object and the field.
type ObjectError struct {
	File string
	// Item is the object's 0-based position in the file (list items and
	// documents counted together); -1 when the file holds one object.
	Item            int
	Kind            string
	Namespace, Name string
	Field           string // JSON path, e.g. spec.containers[0].resources.requests.cpu
	Err             error
}

// Error reads e.g. "pods.json: item 17 (default/web-1):
// spec.containers[0].resources.requests.cpu: quantities must match …".
func (e *ObjectError) Error() string {
	s := e.File
	if e.Item >= 0 {
		s += fmt.Sprintf(": item %d", e.Item)
	}
	if obj := objectName(e.Namespace, e.Name); obj != "" {
		s += " (" + obj + ")"
	}
	if e.Field != "" {
		s += ": " + e.Field
	}
	return s + ": " + e.Err.Error()
}

func (e *ObjectError) Unwrap() error { return e.Err }

// objectName is "namespace/name", or "name" for a cluster-scoped object.
func objectName(namespace, name string) string {
	if namespace == "" {
		return name
	}
	return namespace + "/" + name
}
