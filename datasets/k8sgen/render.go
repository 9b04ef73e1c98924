package k8sgen

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sort"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
)

// kubectlIndent is the indentation of `kubectl get -o json`.
const kubectlIndent = "    "

// marshalList prints items as `kubectl get … -o json` does: a List
//
//	{"apiVersion": "v1", "items": [...], "kind": "List", "metadata": {"resourceVersion": ""}}
//
// with every object's keys sorted (kubectl prints objects it decoded into
// maps), indented by four spaces, ending in a newline. Each item is
// marshalled by encoding/json and re-indented by sortIndent, which gives the
// bytes json.MarshalIndent gives for the item decoded into a map, at a
// fraction of the cost (a test holds the two equal).
func marshalList(items []any) ([]byte, error) {
	// Items are printed in chunks, one per processor, and joined in order.
	chunks := min(runtime.GOMAXPROCS(0), max(1, len(items)/64))
	bufs := make([][]byte, chunks)
	errs := make([]error, chunks)
	var wg sync.WaitGroup
	for c := range chunks {
		lo, hi := c*len(items)/chunks, (c+1)*len(items)/chunks
		wg.Go(func() { bufs[c], errs[c] = printItems(items[lo:hi], lo) })
	}
	wg.Wait()
	size := 0
	for c := range chunks {
		if errs[c] != nil {
			return nil, errs[c]
		}
		size += len(bufs[c])
	}
	const head = "{\n    \"apiVersion\": \"v1\",\n    \"items\": ["
	const tail = "],\n    \"kind\": \"List\",\n    \"metadata\": {\n        \"resourceVersion\": \"\"\n    }\n}\n"
	out := make([]byte, 0, len(head)+size+len(tail)+8)
	out = append(out, head...)
	for c := range chunks {
		b := bufs[c]
		if c > 0 && len(b) > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	if len(items) > 0 {
		out = append(out, "\n    "...)
	}
	return append(out, tail...), nil
}

// printItems prints items as list elements (depth 2), comma-separated;
// first is the index of items[0] in the list, for errors.
func printItems(items []any, first int) ([]byte, error) {
	var out []byte
	var si sortIndenter
	for i, it := range items {
		b, err := json.Marshal(it)
		if err != nil {
			return nil, fmt.Errorf("k8sgen: item %d: %w", first+i, err)
		}
		if i == 0 {
			out = make([]byte, 0, len(b)*2*len(items))
		} else {
			out = append(out, ',')
		}
		out = newline(out, 2)
		if out, _, err = si.value(out, b, 0, 2); err != nil {
			return nil, fmt.Errorf("k8sgen: item %d: %w", first+i, err)
		}
	}
	return out, nil
}

// sortIndenter re-indents compact JSON with object keys sorted, in one pass:
// each member's value is printed into a scratch buffer of its depth, then
// the members are copied out in key order. Keys are compared as their raw
// (escaped) bytes, which orders them as Go orders the decoded strings for
// keys without escapes (all of the API's).
type sortIndenter struct {
	scratch [][]byte   // printed member values, per depth
	members [][]member // per depth
}

type member struct {
	key        []byte
	start, end int // the printed value in scratch
}

var errJSON = errors.New("k8sgen: bad JSON")

// value appends the value at src[i], printed at the given depth, to out and
// returns out and the index after the value.
func (si *sortIndenter) value(out, src []byte, i, depth int) ([]byte, int, error) {
	if i >= len(src) {
		return out, 0, errJSON
	}
	switch src[i] {
	case '{':
		if i+1 < len(src) && src[i+1] == '}' {
			return append(out, "{}"...), i + 2, nil
		}
		for len(si.members) <= depth {
			si.members = append(si.members, nil)
			si.scratch = append(si.scratch, nil)
		}
		ms, sb := si.members[depth][:0], si.scratch[depth][:0]
		j := i + 1
		for {
			ke, err := skipString(src, j)
			if err != nil {
				return out, 0, err
			}
			if ke >= len(src) || src[ke] != ':' {
				return out, 0, errJSON
			}
			start := len(sb)
			var ve int
			if sb, ve, err = si.value(sb, src, ke+1, depth+1); err != nil {
				return out, 0, err
			}
			ms = append(ms, member{src[j:ke], start, len(sb)})
			if ve >= len(src) {
				return out, 0, errJSON
			}
			j = ve + 1
			if src[ve] == '}' {
				break
			}
			if src[ve] != ',' {
				return out, 0, errJSON
			}
		}
		slices.SortFunc(ms, func(a, b member) int { return bytes.Compare(a.key, b.key) })
		out = append(out, '{')
		for k, m := range ms {
			if k > 0 {
				out = append(out, ',')
			}
			out = newline(out, depth+1)
			out = append(out, m.key...)
			out = append(out, ": "...)
			out = append(out, sb[m.start:m.end]...)
		}
		si.members[depth], si.scratch[depth] = ms, sb
		return append(newline(out, depth), '}'), j, nil
	case '[':
		if i+1 < len(src) && src[i+1] == ']' {
			return append(out, "[]"...), i + 2, nil
		}
		out = append(out, '[')
		j := i + 1
		for first := true; ; first = false {
			if !first {
				out = append(out, ',')
			}
			out = newline(out, depth+1)
			var e int
			var err error
			if out, e, err = si.value(out, src, j, depth+1); err != nil {
				return out, 0, err
			}
			if e >= len(src) {
				return out, 0, errJSON
			}
			j = e + 1
			if src[e] == ']' {
				break
			}
			if src[e] != ',' {
				return out, 0, errJSON
			}
		}
		return append(newline(out, depth), ']'), j, nil
	case '"':
		e, err := skipString(src, i)
		if err != nil {
			return out, 0, err
		}
		return append(out, src[i:e]...), e, nil
	}
	j := i
	for j < len(src) && src[j] != ',' && src[j] != '}' && src[j] != ']' {
		j++
	}
	if j == i {
		return out, 0, errJSON
	}
	return append(out, src[i:j]...), j, nil
}

// newlines holds a newline and the indentation of every depth up to 32.
var newlines = "\n" + strings.Repeat(kubectlIndent, 32)

func newline(out []byte, depth int) []byte {
	if depth > 32 {
		out = newline(out, depth-32)
		return append(out, newlines[1:]...)
	}
	return append(out, newlines[:1+len(kubectlIndent)*depth]...)
}

// skipString returns the index after the string starting at src[i].
func skipString(src []byte, i int) (int, error) {
	if i >= len(src) || src[i] != '"' {
		return 0, errJSON
	}
	for j := i + 1; j < len(src); j++ {
		switch src[j] {
		case '\\':
			j++
		case '"':
			return j + 1, nil
		}
	}
	return 0, errJSON
}

// marshalNodes prints nodes sorted by name, as the API server lists them.
func marshalNodes(nodes []*corev1.Node) ([]byte, error) {
	s := append([]*corev1.Node(nil), nodes...)
	sort.Slice(s, func(i, j int) bool { return s[i].Name < s[j].Name })
	items := make([]any, len(s))
	for i, n := range s {
		n.TypeMeta.APIVersion, n.TypeMeta.Kind = "v1", "Node"
		items[i] = n
	}
	return marshalList(items)
}

// marshalPods prints pods sorted by namespace and name, as
// `kubectl get pods -A` lists them.
func marshalPods(pods []*corev1.Pod) ([]byte, error) {
	s := append([]*corev1.Pod(nil), pods...)
	sort.Slice(s, func(i, j int) bool {
		if s[i].Namespace != s[j].Namespace {
			return s[i].Namespace < s[j].Namespace
		}
		return s[i].Name < s[j].Name
	})
	items := make([]any, len(s))
	for i, p := range s {
		p.TypeMeta.APIVersion, p.TypeMeta.Kind = "v1", "Pod"
		items[i] = p
	}
	return marshalList(items)
}
