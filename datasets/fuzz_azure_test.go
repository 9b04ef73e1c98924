package datasets

import (
	"bytes"
	"compress/gzip"
	"os"
	"path/filepath"
	"testing"
)

func gzipBytes(s string) []byte {
	var b bytes.Buffer
	zw := gzip.NewWriter(&b)
	zw.Write([]byte(s))
	zw.Close()
	return b.Bytes()
}

func FuzzAzureCPU(f *testing.F) {
	f.Add([]byte(`"vm","step","minute","avg_cpu","max_cpu"` + "\n\"1633748\",1,0,44.4591,71.889\n\"1633748\",2,5,47.9345,84.0103\n"))
	f.Add([]byte(`"vm","period_hours","step","minute","avg_cpu","max_cpu"` + "\n\"83972\",1,1,0,0.9237,1.3517\n\"83972\",24,1,0,0.9237,1.3517\n\"83972\",24,2,5,1,2\n"))
	f.Add([]byte(`"vm","step","minute","avg_cpu","max_cpu"` + "\na,1,10,1,2\na,2,5,1,2\na,3,10,1,2\n"))
	f.Add([]byte(`"vm","period_hours","step","minute","avg_cpu","max_cpu"` + "\na,0,1,0,1,2\nb,8,1,1e300,1,-2\n"))
	f.Add(gzipBytes(`"vm","step","minute","avg_cpu","max_cpu"` + "\nx,1,0,1,2\n"))
	fuzzIngest(f, "azure-cpu", "cpu.csv")
}

func FuzzAzureVMTable(f *testing.F) {
	f.Add([]byte("x/Xs,VDU4,Pc2V==,0,2591700,99.369869,3.4240942342446719,10.194309,Delay-insensitive,1,1.75\n" +
		"wR/G,VDU4,Pc2V==,2188800,2591700,99.569027,3.5736346071428589,7.92425,Unkown,8,56\n"))
	f.Add([]byte("0,+Zcr/c,2.052803,3.911587,2.86979\n300,+Zcr/c,1.64695,8.794403,3.254472\n0,2zrg,,,1\n"))
	f.Add([]byte("a,s,d,0,300,10,5,9,Interactive,>24,>64\nb,s,d,0,600,,,,,24,64\nb,s,d,0,600,1,1,1,x,2,4\n"))
	f.Add([]byte("a,s,d,600,300,10,5,9,Interactive,0,4\na,b,c\n"))
	f.Add(gzipBytes("a,s,d,0,300,10,5,9,Interactive,2,4\n"))
	fuzzIngest(f, "azure-vmtable", "vmtable.csv")
}

func FuzzAlibaba(f *testing.F) {
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu,model\nopenb-node-0000,32000,262144,0,\nopenb-node-0001,96000,393216,8,G2\nopenb-node-0002,96000,393216,8,G2\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,deletion_time,scheduled_time\n" +
		"openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0\nopenb-pod-0001,6000,12288,1,460,,BE,Running,427061,12902960,427061\n" +
		"openb-pod-0002,4000,0,0,0,V100M16|V100M32,Burstable,Pending,5,,\n"))
	f.Add([]byte("name,cpu_milli,memory_mib,num_gpu,creation_time\np,0,1,0,0\np,1,-1,0,0\n"))
	f.Add([]byte("sn,cpu_milli,memory_mib,gpu\nn,1,1,0\nn,1e-320,1,0\n"))
	fuzzIngest(f, "alibaba-openb", "openb.csv")
}

// FuzzAzurePacking mutates whole SQLite files. Nearly every mutation reaches
// new code in the (instrumented, transpiled) SQLite, and the fuzzer then
// spends its time minimizing each new input; run it with minimization off:
//
//	go test ./datasets/ -run '^$' -fuzz '^FuzzAzurePacking$' -fuzzminimizetime 0 -fuzztime 20s
func FuzzAzurePacking(f *testing.F) {
	dir := f.TempDir()
	seed := func(fx packingFixture) {
		p := fx.write(f, filepath.Join(dir, "seed.sqlite"))
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		os.Remove(p)
		f.Add(b)
	}
	seed(goodPackingFixture())
	bad := goodPackingFixture()
	bad.vms = append(bad.vms, []any{103, 9, 5, 0, 1, 2}, []any{104, 9, 1, 3, "x", -1})
	bad.types[0][3] = 1.5
	seed(bad)
	noTypes := goodPackingFixture()
	noTypes.typeDDL = "-"
	seed(noTypes)
	f.Add([]byte("SQLite format 3\x00"))
	f.Add([]byte("PK\x03\x04"))
	fuzzIngest(f, "azure-packing", "trace.sqlite")
}
