package datasets

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	store "placelab/sql"
)

func init() {
	register(Format{
		Name:    "alibaba-openb",
		Summary: "Alibaba GPU cluster trace 2023 (openb_node_list_*.csv and openb_pod_list_*.csv): inventory and pods",
		Help: `CSV files with a header from the Alibaba "openb" GPU cluster trace (ATC 2023,
"Beware of Fragmentation"; no license stated). Node lists and pod lists are told
apart by their header and load together: the node list is the inventory, the
pods are the workload.

  node list: sn, cpu_milli, memory_mib, gpu, model
      -> sku: one per distinct (cores, memory, gpus, model), named like c32m256
         or c96m384g8-G2: cores = cpu_milli/1000, memory_gb = memory_mib/1024,
         gpus = gpu, gpu_model = model (empty or "nan": none).
      -> machine: machine_id dense in file order, name = sn, zone "openb",
         datacenter "openb-dc1", one cluster per SKU ("openb-<sku>"), racks of
         40 machines within a cluster ("<cluster>-r<k>", k from 0),
         update_domain = k mod 5, health "healthy".
  pod list: name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos,
            pod_phase, creation_time, deletion_time, scheduled_time
      -> vm: name = tenant = name, cores = cpu_milli/1000, memory GB =
         memory_mib/1024 (0 is allowed), gpus = num_gpu, except a GPU-sharing
         pod (num_gpu 1, 0 < gpu_milli < 1000) asks gpu_milli/1000 of one GPU;
         priority 1 for qos BE (best effort), else 0; start_s = creation_time,
         end_s = deletion_time (s; empty: NULL), category = pod_phase. The VM
         type is the distinct (cores, memory, gpus), named like c6m12g0.46.
         gpu_spec (GPU model constraints) and scheduled_time are not loaded.
Then every VM type's per-SKU demand is derived from the sizes (vm_type_demand).

Rejected: a missing column, an empty or repeated sn or pod name, a non-numeric
number, cpu_milli <= 0 (nodes and pods), memory_mib <= 0 on a node or < 0 on a
pod, a negative gpu count or gpu_milli, deletion_time < creation_time, a time beyond
±30 years (MaxTraceSeconds).
--inventory is only for pod lists loaded without a node list.`,
		Load: loadAlibaba,
	})
}

type openbSKU struct {
	cores, mem, gpus float64
	model            string
}

type openbCluster struct {
	name     string
	machines int
}

type alibabaLoader struct {
	ctx      context.Context
	w        *store.Writer
	rej      rejecter
	types    *vmTypes
	skus     map[openbSKU]string
	skuNames map[string]bool
	clusters map[string]*openbCluster // by sku
	nodes    map[string]bool
	pods     map[string]bool
	machines int32
	vms      int64
}

func loadAlibaba(ctx context.Context, w *store.Writer, paths []string, opts Options) error {
	l := &alibabaLoader{ctx: ctx, w: w, rej: rejecter{w, opts.MaxRejects}, types: newVMTypes(w),
		skus: map[openbSKU]string{}, skuNames: map[string]bool{}, clusters: map[string]*openbCluster{},
		nodes: map[string]bool{}, pods: map[string]bool{}}
	err := eachFile(paths, opts.Progress, func(src *source) error {
		c, err := newCSV(src, ',', true)
		if err != nil {
			return err
		}
		_, hasSN := c.header["sn"]
		_, hasName := c.header["name"]
		switch {
		case hasSN:
			return l.nodeFile(c)
		case hasName:
			return l.podFile(c)
		}
		return &RowError{File: src.name, Row: 1, Err: fmt.Errorf("%w: header is neither a node list (sn, cpu_milli, memory_mib, gpu, model) nor a pod list (name, cpu_milli, memory_mib, num_gpu, ...)", ErrMissingField)}
	})
	if err != nil {
		return err
	}
	if opts.Inventory != "" {
		if l.machines > 0 {
			return fmt.Errorf("datasets: alibaba-openb: the node list is the inventory; drop --inventory %q", opts.Inventory)
		}
		return attachInventory(w, opts)
	}
	return deriveDemand(w)
}

// cols looks up required (and optional, -1 when absent) header columns.
func openbCols(c *csvFile, required, optional []string) (map[string]int, error) {
	idx := map[string]int{}
	for _, name := range required {
		i, err := c.col(name)
		if err != nil {
			return nil, err
		}
		idx[name] = i
	}
	for _, name := range optional {
		i, ok := c.header[name]
		if !ok {
			i = -1
		}
		idx[name] = i
	}
	return idx, nil
}

// each calls row for every record, applying ctx and rejections.
func (l *alibabaLoader) each(c *csvFile, row func() error) error {
	return c.each(l.ctx, l.rej, row)
}

// optNonNegative reads an optional column (-1: absent) that must be >= 0;
// empty reads as 0.
func openbOptNonNegative(c *csvFile, i int, field string) (float64, error) {
	if i < 0 {
		return 0, nil
	}
	v, ok, err := c.optFloat(i, field)
	if err != nil || !ok {
		return 0, err
	}
	if v < 0 {
		return 0, c.errf(field, c.rec[i], ErrNegative)
	}
	return v, nil
}

// optStr reads an optional text column; "nan" (pandas' empty) reads as "".
func openbOptStr(c *csvFile, i int, field string) (string, error) {
	if i < 0 {
		return "", nil
	}
	s, err := textField(c, i, field)
	if strings.EqualFold(s, "nan") {
		s = ""
	}
	return s, err
}

func (l *alibabaLoader) nodeFile(c *csvFile) error {
	idx, err := openbCols(c, []string{"sn", "cpu_milli", "memory_mib", "gpu"}, []string{"model"})
	if err != nil {
		return err
	}
	return l.each(c, func() error {
		sn, err := textField(c, idx["sn"], "sn")
		if err != nil {
			return err
		}
		if sn == "" {
			return c.errf("sn", "", ErrMissingField)
		}
		cpu, err := c.positive(idx["cpu_milli"], "cpu_milli")
		if err != nil {
			return err
		}
		mem, err := c.positive(idx["memory_mib"], "memory_mib")
		if err != nil {
			return err
		}
		gpus, err := openbOptNonNegative(c, idx["gpu"], "gpu")
		if err != nil {
			return err
		}
		model, err := openbOptStr(c, idx["model"], "model")
		if err != nil {
			return err
		}
		if l.nodes[sn] {
			return c.errf("sn", sn, ErrDuplicateID)
		}
		key := openbSKU{cores: cpu / 1000, mem: mem / 1024, gpus: gpus, model: model}
		if key.cores <= 0 {
			return c.errf("cpu_milli", c.rec[idx["cpu_milli"]], ErrNonPositive)
		}
		if key.mem <= 0 {
			return c.errf("memory_mib", c.rec[idx["memory_mib"]], ErrNonPositive)
		}
		sku, ok := l.skus[key]
		if !ok {
			sku = "c" + fnum(key.cores) + "m" + fnum(key.mem)
			if gpus > 0 {
				sku += "g" + fnum(gpus)
			}
			if model != "" {
				sku += "-" + model
			}
			for base, k := sku, 2; l.skuNames[sku]; k++ {
				sku = base + "-" + strconv.Itoa(k)
			}
			if err := l.w.Append("sku", sku, nil, key.cores, key.mem, 0.0, 0.0, 0.0, gpus, nullStr(model)); err != nil {
				return err
			}
			l.skus[key], l.skuNames[sku] = sku, true
			l.clusters[sku] = &openbCluster{name: "openb-" + sku}
		}
		l.nodes[sn] = true
		cl := l.clusters[sku]
		rack := cl.machines / 40
		cl.machines++
		if err := l.w.Append("machine", l.machines, sn, "openb", "openb-dc1", cl.name,
			cl.name+"-r"+strconv.Itoa(rack), int16(rack%5), sku, "healthy"); err != nil {
			return err
		}
		l.machines++
		l.w.Counts.RowsLoaded++
		return nil
	})
}

func (l *alibabaLoader) podFile(c *csvFile) error {
	idx, err := openbCols(c, []string{"name", "cpu_milli", "memory_mib", "num_gpu", "creation_time"},
		[]string{"gpu_milli", "qos", "pod_phase", "deletion_time"})
	if err != nil {
		return err
	}
	return l.each(c, func() error {
		name, err := textField(c, idx["name"], "name")
		if err != nil {
			return err
		}
		if name == "" {
			return c.errf("name", "", ErrMissingField)
		}
		cpu, err := c.positive(idx["cpu_milli"], "cpu_milli")
		if err != nil {
			return err
		}
		mem, err := c.nonNegative(idx["memory_mib"], "memory_mib")
		if err != nil {
			return err
		}
		gpus, err := openbOptNonNegative(c, idx["num_gpu"], "num_gpu")
		if err != nil {
			return err
		}
		milli, err := openbOptNonNegative(c, idx["gpu_milli"], "gpu_milli")
		if err != nil {
			return err
		}
		if gpus == 1 && milli > 0 && milli < 1000 {
			gpus = milli / 1000
		}
		qos, err := openbOptStr(c, idx["qos"], "qos")
		if err != nil {
			return err
		}
		var prio int16
		if strings.EqualFold(qos, "BE") || strings.EqualFold(qos, "BestEffort") {
			prio = 1
		}
		phase, err := openbOptStr(c, idx["pod_phase"], "pod_phase")
		if err != nil {
			return err
		}
		start, err := c.seconds(idx["creation_time"], "creation_time", 1)
		if err != nil {
			return err
		}
		var end any
		if i := idx["deletion_time"]; i >= 0 {
			v, ok, err := c.optSeconds(i, "deletion_time", 1)
			if err != nil {
				return err
			}
			if ok && v < start {
				return c.errf("deletion_time", c.rec[i], ErrEndBeforeStart)
			}
			end = nullFloat(v, ok)
		}
		if l.pods[name] {
			return c.errf("name", name, ErrDuplicateID)
		}
		cores := typeSize(cpu / 1000)
		if cores <= 0 {
			return c.errf("cpu_milli", c.rec[idx["cpu_milli"]], ErrNonPositive)
		}
		typ, err := l.types.name(typeShape{cores: cores, mem: typeSize(mem / 1024), gpus: typeSize(gpus)})
		if err != nil {
			return err
		}
		l.pods[name] = true
		if err := l.w.Append("vm", l.vms, name, name, nil, typ, prio, start, end, nullStr(phase),
			nil, nil, nil, nil); err != nil {
			return err
		}
		l.vms++
		l.w.Counts.RowsLoaded++
		return nil
	})
}

// typeSize rounds a VM size to the 6 significant digits that VM type names
// show, so that two sizes with the same name are the same type (and the
// vm_type key holds). The change is below 1e-5 relative.
func typeSize(v float64) float64 {
	r, err := strconv.ParseFloat(fnum(v), 64)
	if err != nil {
		return v
	}
	return r
}
