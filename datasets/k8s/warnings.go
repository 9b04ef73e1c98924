package k8s

import "strconv"

// warnings collects a load's warnings in the order they first occur.
// Warnings of one object are added as they are; warnings repeated over many
// objects are aggregated under a key into one, whose message is written
// with the final count.
type warnings struct {
	list    []Warning
	byKey   map[string]int // aggregation key → index in list
	counts  []int          // per list entry; 0 for a plain warning
	formats [][2]string    // per list entry: the message's text before and after the count
}

// add appends one warning.
func (w *warnings) add(code, source, object, message string) {
	w.list = append(w.list, Warning{Source: source, Object: object, Code: code, Message: message})
	w.counts = append(w.counts, 0)
	w.formats = append(w.formats, [2]string{})
}

// count adds one occurrence to the warning aggregated under key, creating
// it with this source and object the first time; its message is before,
// the final count and after, e.g. "" + "2" + " pod(s) bound to node-9…".
func (w *warnings) count(key, code, source, object, before, after string) {
	if w.byKey == nil {
		w.byKey = map[string]int{}
	}
	k := code + "\x00" + key
	if i, ok := w.byKey[k]; ok {
		w.counts[i]++
		return
	}
	w.byKey[k] = len(w.list)
	w.list = append(w.list, Warning{Source: source, Object: object, Code: code})
	w.counts = append(w.counts, 1)
	w.formats = append(w.formats, [2]string{before, after})
}

// done returns the warnings with the aggregated messages written.
func (w *warnings) done() []Warning {
	for i, f := range w.formats {
		if w.counts[i] > 0 {
			w.list[i].Message = f[0] + strconv.Itoa(w.counts[i]) + f[1]
		}
	}
	return w.list
}
