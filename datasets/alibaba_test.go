package datasets

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"placelab/internal/shareddata"
)

func TestAlibabaReal(t *testing.T) {
	nodes := shareddata.Path(t, "alibaba-gpu-v2023/openb_node_list_all_node.csv")
	pods := shareddata.Path(t, "alibaba-gpu-v2023/openb_pod_list_default.csv")
	db := openDB(t)
	start := time.Now()
	// Pods first on the command line: files are told apart by header.
	c, err := Ingest(context.Background(), db, "alibaba-openb", []string{pods, nodes}, Options{Dataset: "ali"})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("1,523 nodes + 8,152 pods in %v", time.Since(start))
	if c.RowsRead != 1523+8152 || c.RowsLoaded != 1523+8152 || c.RowsRejected != 0 {
		t.Fatalf("counts = %+v", c)
	}
	checks := []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM machine WHERE dataset = 'ali'", 1523},
		{"SELECT count(*) FROM sku WHERE dataset = 'ali'", 27},
		{"SELECT count(*) FROM vm WHERE dataset = 'ali'", 8152},
		{"SELECT count(DISTINCT cluster) FROM machine WHERE dataset = 'ali'", 27},
		{"SELECT count(*) FROM machine WHERE dataset = 'ali' AND (zone <> 'openb' OR datacenter <> 'openb-dc1' OR health <> 'healthy')", 0},
		{"SELECT max(vm_id) + 1 FROM vm WHERE dataset = 'ali'", 8152},
		{"SELECT max(machine_id) + 1 FROM machine WHERE dataset = 'ali'", 1523},
		// 549 G2 nodes: 14 racks of 40 (the last one holds 29).
		{"SELECT count(*) FROM machine WHERE sku = 'c96m384g8-G2'", 549},
		{"SELECT count(DISTINCT rack) FROM machine WHERE sku = 'c96m384g8-G2'", 14},
		{"SELECT count(*) FROM machine WHERE rack = 'openb-c96m384g8-G2-r13' AND update_domain = 3", 29},
		{"SELECT max(n) FROM (SELECT count(*) AS n FROM machine WHERE dataset = 'ali' GROUP BY rack)", 40},
		{"SELECT count(*) FROM sku WHERE sku = 'c32m256' AND cores = 32 AND memory_gb = 256 AND gpus = 0 AND gpu_model IS NULL", 1},
		{"SELECT count(*) FROM sku WHERE sku = 'c96m384g8-G2' AND gpus = 8 AND gpu_model = 'G2'", 1},
		{"SELECT count(*) FROM sku WHERE sku = 'c16m120g2-P100' AND memory_gb = 120", 1},
		{"SELECT count(*) FROM machine WHERE name = 'openb-node-0000' AND machine_id = 0", 1},
		// qos: 3,398 BE pods are low priority.
		{"SELECT count(*) FROM vm WHERE dataset = 'ali' AND priority = 1", 3398},
		{"SELECT count(*) FROM vm WHERE dataset = 'ali' AND end_s IS NULL", 0},
		{"SELECT count(DISTINCT category) FROM vm WHERE dataset = 'ali'", 4},
		// The one pod with 0 memory loads.
		{"SELECT count(*) FROM vm v JOIN vm_type t USING (load_id, vm_type) WHERE v.dataset = 'ali' AND t.memory_gb = 0", 1},
		// openb-pod-0001: 6 cores, 12 GB, shares 0.46 of a GPU.
		{"SELECT count(*) FROM vm v JOIN vm_type t USING (load_id, vm_type) WHERE v.name = 'openb-pod-0001' AND t.cores = 6 AND t.memory_gb = 12 AND t.gpus = 0.46 AND v.tenant = v.name AND v.start_s = 427061", 1},
		// Whole-GPU and CPU-only pods.
		{"SELECT count(*) FROM vm v JOIN vm_type t USING (load_id, vm_type) WHERE v.dataset = 'ali' AND t.gpus = 0", 1088},
		{"SELECT count(*) FROM vm v JOIN vm_type t USING (load_id, vm_type) WHERE v.dataset = 'ali' AND t.gpus = 8", 44},
		// Every VM type fits some SKU: demands were derived.
		{"SELECT count(*) FROM vm_type t WHERE t.dataset = 'ali' AND NOT EXISTS (SELECT 1 FROM vm_type_demand d WHERE d.load_id = t.load_id AND d.vm_type = t.vm_type)", 0},
		// GPU pods never land on GPU-less SKUs.
		{"SELECT count(*) FROM vm_type_demand d JOIN vm_type t USING (load_id, vm_type) JOIN sku s ON s.load_id = d.load_id AND s.sku = d.sku WHERE d.dataset = 'ali' AND t.gpus > 0 AND s.gpus = 0", 0},
	}
	for _, ch := range checks {
		if n := rowCount(t, db, ch.q); n != ch.want {
			t.Errorf("%s = %d, want %d", ch.q, n, ch.want)
		}
	}
}

func TestAlibabaSmall(t *testing.T) {
	db := openDB(t)
	nodes := writeFile(t, "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\nn1,96000,393216,8,G2\nn2,32000,262144,0,nan\n")
	pods := writeFile(t, "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"p0,4000,8192,0,0,,LS,Running,10,20,10\n"+
		"p1,500,0,1,250,,BE,Pending,30,,\n"+
		"p2,8000,16384,2,1000,V100M16|V100M32,Burstable,Succeeded,5,5,5\n")
	c, err := Ingest(context.Background(), db, "alibaba-openb", []string{nodes, pods}, Options{Dataset: "s"})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 6 {
		t.Fatalf("counts = %+v", c)
	}
	for _, ch := range []struct {
		q    string
		want int64
	}{
		{"SELECT count(*) FROM sku", 2},
		{"SELECT count(*) FROM machine WHERE sku = 'c32m256' AND cluster = 'openb-c32m256' AND rack = 'openb-c32m256-r0'", 2},
		{"SELECT count(*) FROM machine WHERE name = 'n1' AND machine_id = 1 AND sku = 'c96m384g8-G2'", 1},
		{"SELECT count(*) FROM vm WHERE name = 'p0' AND vm_type = 'c4m8' AND priority = 0 AND start_s = 10 AND end_s = 20 AND category = 'Running'", 1},
		{"SELECT count(*) FROM vm WHERE name = 'p1' AND vm_type = 'c0.5m0g0.25' AND priority = 1 AND end_s IS NULL AND category = 'Pending'", 1},
		{"SELECT count(*) FROM vm WHERE name = 'p2' AND vm_type = 'c8m16g2' AND priority = 0", 1},
		// c4m8 and c0.5m0g0.25 fit both / the GPU SKU; c8m16g2 only the GPU SKU.
		{"SELECT count(*) FROM vm_type_demand", 4},
		{"SELECT count(*) FROM vm_type_demand WHERE vm_type = 'c0.5m0g0.25' AND sku = 'c96m384g8-G2' AND gpu = 0.25 / 8", 1},
		{"SELECT count(*) FROM vm_type_demand WHERE vm_type = 'c4m8' AND sku = 'c32m256' AND cores = 0.125 AND memory = 8.0 / 256", 1},
	} {
		if n := rowCount(t, db, ch.q); n != ch.want {
			t.Errorf("%s = %d, want %d", ch.q, n, ch.want)
		}
	}
}

func TestAlibabaInventoryConflict(t *testing.T) {
	db := openDB(t)
	nodes := writeFile(t, "nodes.csv", "sn,cpu_milli,memory_mib,gpu,model\nn0,32000,262144,0,\n")
	_, err := Ingest(context.Background(), db, "alibaba-openb", []string{nodes}, Options{Inventory: "synthetic:5"})
	if err == nil || !strings.Contains(err.Error(), "node list is the inventory") {
		t.Fatalf("err = %v", err)
	}
}

func TestAlibabaBadInput(t *testing.T) {
	nh := "sn,cpu_milli,memory_mib,gpu,model\n"
	ph := "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
	cases := []struct {
		name, body string
		want       error
		wantIn     string
	}{
		{"node non-numeric", nh + "n0,32000,262144,0,\nn1,lots,262144,0,\n", ErrNotNumber, "row 3: field cpu_milli"},
		{"node zero memory", nh + "n0,32000,0,0,\n", ErrNonPositive, "row 2: field memory_mib"},
		{"node negative gpu", nh + "n0,32000,1024,-1,\n", ErrNegative, "row 2: field gpu"},
		{"node duplicate", nh + "n0,32000,1024,0,\nn0,32000,1024,0,\n", ErrDuplicateID, "row 3: field sn"},
		{"node empty sn", nh + ",32000,1024,0,\n", ErrMissingField, "row 2: field sn"},
		{"node not utf-8", nh + "\x80,32000,1024,0,\n", ErrMalformed, "row 2: field sn"},
		{"pod not utf-8", ph + "p0,1000,1,0,0,,LS,Runn\xffing,0,10,0\n", ErrMalformed, "row 2: field pod_phase"},
		{"node missing column", "sn,cpu_milli,gpu,model\nn0,1,0,\n", ErrMissingField, "memory_mib"},
		{"pod zero cpu", ph + "p0,0,1024,0,0,,LS,Running,0,10,0\n", ErrNonPositive, "row 2: field cpu_milli"},
		{"pod negative cpu", ph + "p0,-1000,1024,0,0,,LS,Running,0,10,0\n", ErrNonPositive, "row 2: field cpu_milli"},
		{"pod negative memory", ph + "p0,1000,-1,0,0,,LS,Running,0,10,0\n", ErrNegative, "row 2: field memory_mib"},
		{"pod non-numeric gpu", ph + "p0,1000,1,x,0,,LS,Running,0,10,0\n", ErrNotNumber, "row 2: field num_gpu"},
		{"pod negative gpu_milli", ph + "p0,1000,1,1,-5,,LS,Running,0,10,0\n", ErrNegative, "row 2: field gpu_milli"},
		{"pod end before start", ph + "p0,1000,1,0,0,,LS,Running,0,10,0\np1,1000,1,0,0,,LS,Running,50,10,50\n", ErrEndBeforeStart, "row 3: field deletion_time"},
		{"pod missing start", ph + "p0,1000,1,0,0,,LS,Running,,10,0\n", ErrNotNumber, "row 2: field creation_time"},
		{"pod duplicate", ph + "p0,1000,1,0,0,,LS,Running,0,10,0\np0,1000,1,0,0,,LS,Running,0,10,0\n", ErrDuplicateID, "row 3: field name"},
		{"pod short record", ph + "p0,1000,1\n", ErrMissingField, "row 2: field num_gpu"},
		{"pod missing column", "name,cpu_milli,memory_mib,num_gpu\np0,1,1,0\n", ErrMissingField, "creation_time"},
		{"unknown header", "id,cores\n1,2\n", ErrMissingField, "neither a node list"},
		{"empty file", "", ErrMalformed, "empty file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			db := openDB(t)
			// A good node list alongside, so the rollback covers both kinds.
			good := writeFile(t, "nodes-ok.csv", nh+"ok0,32000,262144,0,\n")
			p := filepath.Join(t.TempDir(), "bad.csv")
			if err := os.WriteFile(p, []byte(tc.body), 0o644); err != nil {
				t.Fatal(err)
			}
			_, err := Ingest(context.Background(), db, "alibaba-openb", []string{good, p}, Options{})
			if !errors.Is(err, tc.want) || !strings.Contains(err.Error(), tc.wantIn) || !strings.Contains(err.Error(), p) {
				t.Fatalf("err = %v, want %v mentioning %q and the file", err, tc.want, tc.wantIn)
			}
			for _, table := range []string{"sku", "machine", "vm", "vm_type", "vm_type_demand", "dataset"} {
				if n := rowCount(t, db, "SELECT count(*) FROM "+table); n != 0 {
					t.Fatalf("%d %s rows left behind", n, table)
				}
			}
		})
	}
}

func TestAlibabaRejects(t *testing.T) {
	db := openDB(t)
	pods := writeFile(t, "pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"+
		"p0,4000,8192,0,0,,LS,Running,10,20,10\np1,0,8192,0,0,,LS,Running,10,20,10\np2,4000,8192,0,0,,LS,Running,10,20,10\n")
	c, err := Ingest(context.Background(), db, "alibaba-openb", []string{pods}, Options{Dataset: "r", MaxRejects: 1})
	if err != nil {
		t.Fatal(err)
	}
	if c.RowsLoaded != 2 || c.Rejected["cpu_milli: size must be > 0"] != 1 {
		t.Fatalf("counts = %+v", c)
	}
	if n := rowCount(t, db, "SELECT max(vm_id) FROM vm WHERE dataset = 'r'"); n != 1 {
		t.Fatalf("vm ids not dense: max %d", n)
	}
}
