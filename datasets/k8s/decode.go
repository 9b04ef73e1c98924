package k8s

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"k8s.io/apimachinery/pkg/api/resource"
)

// decode reads o into its Kubernetes type (a *corev1.Node, *corev1.Pod,
// *appsv1.Deployment…). encoding/json does not say where a
// Quantity.UnmarshalJSON failed, so on an error decode looks for the bad
// quantity itself and names its field.
func (o *rawObject) decode(into any) error {
	err := json.Unmarshal(o.raw, into)
	if err == nil {
		return nil
	}
	if field, qerr := findBadQuantity(o.raw); qerr != nil {
		return o.fail(field, qerr)
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return o.fail(te.Field, fmt.Errorf("%w: cannot read a JSON %s into %v", ErrMalformed, te.Value, te.Type))
	}
	return o.fail("", fmt.Errorf("%w: %v", ErrMalformed, err))
}

// resourceListKeys are the JSON keys whose value is a ResourceList (a map
// of resource name to quantity) in the objects Load decodes; quantityKeys
// are keys whose value is one quantity.
var (
	resourceListKeys = []string{"requests", "limits", "capacity", "allocatable", "overhead", "allocatedResources"}
	quantityKeys     = []string{"sizeLimit"}
)

// findBadQuantity returns the JSON path of the first quantity of raw that
// resource.ParseQuantity rejects (keys in sorted order, list items in
// order), and its error; nil when every quantity parses.
func findBadQuantity(raw []byte) (string, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil {
		return "", nil
	}
	return walkQuantities(v, "")
}

func walkQuantities(v any, path string) (string, error) {
	switch v := v.(type) {
	case map[string]any:
		for _, k := range sortedKeys(v) {
			child := joinPath(path, k)
			switch {
			case slices.Contains(resourceListKeys, k):
				if list, ok := v[k].(map[string]any); ok {
					for _, name := range sortedKeys(list) {
						if err := checkQuantity(list[name]); err != nil {
							return child + "." + name, err
						}
					}
					continue
				}
			case slices.Contains(quantityKeys, k):
				if err := checkQuantity(v[k]); err != nil {
					return child, err
				}
				continue
			}
			if p, err := walkQuantities(v[k], child); err != nil {
				return p, err
			}
		}
	case []any:
		for i, x := range v {
			if p, err := walkQuantities(x, path+"["+strconv.Itoa(i)+"]"); err != nil {
				return p, err
			}
		}
	}
	return "", nil
}

// checkQuantity parses one quantity as Quantity.UnmarshalJSON does (a
// string or a bare number; null is zero).
func checkQuantity(v any) error {
	var s string
	switch v := v.(type) {
	case nil:
		return nil
	case string:
		s = v
	case json.Number:
		s = v.String()
	default:
		return fmt.Errorf("%w: a quantity must be a string or a number", ErrMalformed)
	}
	_, err := resource.ParseQuantity(strings.TrimSpace(s))
	return err
}

func joinPath(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// sortedKeys are m's keys in order, so that map order never leaks into output.
func sortedKeys[K ~string, V any](m map[K]V) []K {
	keys := make([]K, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
