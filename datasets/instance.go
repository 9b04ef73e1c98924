package datasets

import (
	"path/filepath"
	"strings"
)

// Instance is one bin packing instance read from a file, without a
// database: the pure counterpart of the bpp and vbp loaders.
type Instance struct {
	File     string      // the path it was read from
	Capacity []float64   // one bin capacity per dimension (len 1 for BPPLIB .txt)
	Sizes    [][]float64 // per item kind (identical items merged, in order of first appearance)
	Counts   []int64     // items of each kind
	Items    int64       // Σ Counts
}

// Dims is the number of resource dimensions.
func (in *Instance) Dims() int { return len(in.Capacity) }

// ReadInstance reads one bin packing instance: a file ending in .vbp or
// .vbp.gz is read as the vector format (d; d capacities; m; m lines of d
// sizes and a count), any other file (BPPLIB .txt, .bpp, .gz) as the
// one-dimensional BPPLIB format (n, C, n weights; line breaks and CRLF do not
// matter). It accepts and rejects exactly what the bpp and vbp loaders do; a
// bad value is a *RowError naming the file, line and field.
func ReadInstance(path string) (*Instance, error) {
	parse := parseBPP
	lower := strings.ToLower(path)
	if strings.HasSuffix(lower, ".vbp") || strings.HasSuffix(lower, ".vbp.gz") {
		parse = parseVBP
	}
	src, err := openSource(path)
	if err != nil {
		return nil, err
	}
	defer src.Close()
	inst, err := parse(newTokenReader(src))
	if err != nil {
		return nil, err
	}
	return &Instance{
		File:     path,
		Capacity: inst.capacity,
		Sizes:    inst.sizes,
		Counts:   inst.counts,
		Items:    inst.items,
	}, nil
}

// ReadOptima reads the proven optima of optima.csv (columns set,instance,opt)
// in dir. Keys are "set/instance" as optima.csv spells them, which is the
// path of the instance file relative to dir, with forward slashes (e.g.
// "falkenauer_u/Falkenauer_u1000_00.txt",
// "vbp_panigrahy/class1/class1_120_10_0.vbp"), and the names the bpp and vbp
// loaders give instances. Errors name the file, row and field.
func ReadOptima(dir string) (map[string]int, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, &RowError{File: dir, Err: err}
	}
	o, err := readOptima(abs, filepath.Join(abs, "optima.csv"))
	if err != nil {
		return nil, err
	}
	out := make(map[string]int, len(o.opt))
	for k, v := range o.opt {
		out[k] = int(v)
	}
	return out, nil
}
