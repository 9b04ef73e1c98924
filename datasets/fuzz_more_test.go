package datasets

import "testing"

func FuzzGWA(f *testing.F) {
	f.Add([]byte(gwaHdr + "1,1372629804,2,5851.999,87.78,1.5,8218624,1034592.8,160.867,21.733,0.267,1.467\n1,1372630104,2,5851.999,29.26,0.5,8218624,458575.467,0,2.333,0.2,1\n"))
	f.Add([]byte(gwaHdr + "a,1000000600,0,0,0,0,0,0,0,0,0,0\na,1000000300,2,4000,1000,25,4194304,1048576,0,0,0,0\nb,1000000200000,4,8000,2000,12.5,8388608,524288,0,0,0,0\n"))
	f.Add([]byte(gwaHdr + "a,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\na,1000000000,2,4000,1000,25,4194304,1048576,0,0,0,0\n"))
	f.Add([]byte(gwaHdr + "a,1e14,1e-300,1e-300,1e300,1e300,1e300,1e300,0,0,0,0\na,0,3,0,5,0,0,0\n"))
	f.Add([]byte(gwaRawHdr + "1376314846;\t1;\t2599.999309;\t19.06666159933333;\t0.7333333333333333;\t2097152.0;\t110448.53333333334;\t0.0;\t1.4666666666666666;\t0.0;\t0.0\n"))
	f.Add([]byte("vm_id,ts\n\"a\n"))
	fuzzIngest(f, "gwa", "gwa.csv")
}

func FuzzLumos(f *testing.F) {
	f.Add([]byte(lumosHdr + "aws,5s,x,A,1,spark,a,small,True,10,1\naws,1s,x,A,1,spark,a,small,True,20,1\naws,5s,y,A,1,spark,a,small,False,,1\n"))
	f.Add([]byte(lumosHdr + "aws,5s,x,A,1,spark,a,small,True,1e-300,1\naws,5s,y,A,1,spark,a,small,True,1e300,1\naws,5s,y,A,2,spark,a,small,true,1e300,1\n"))
	f.Add([]byte(lumosHdr + "aws,5s,x,A,1,spark,a,small,True,10,1\naws,5s,x,A,1,spark,a,small,True,10,1\n"))
	f.Add([]byte("provider,vm_type,workload_id,repeat,completed,elapsed_time_s\n,x,A,1,yes,0\n"))
	fuzzIngest(f, "lumos", "lumos.csv")
}

func FuzzBPP(f *testing.F) {
	f.Add([]byte("120\r\n150\r\n100\r\n99\r\n97\r\n97\r\n"))
	f.Add([]byte("3\r\n10\r\n5\r\n5\r\n4\r\n"))
	f.Add([]byte("2 9007199254740992 9007199254740992 1"))
	f.Add([]byte("2147483647 1 1"))
	f.Add([]byte("3\n10\n5\n11\n4.5\n"))
	fuzzIngest(f, "bpp", "inst.txt")
}

func FuzzVBP(f *testing.F) {
	f.Add([]byte("3\n1000 1000 1000\n2\n397 125 209 1\n286 118 174 2\n"))
	f.Add([]byte("2\n10 10\n2\n5 5 1\n5 5 1\n\n"))
	f.Add([]byte("2\n10 8\n2\n0 8 2147483647\n1 1 1\n"))
	f.Add([]byte("1\n5\n1\n0 1\n"))
	f.Add([]byte("2 3\n10\n"))
	fuzzIngest(f, "vbp", "inst.vbp")
}
