package kunits

import (
	"testing"
	"time"
)

// TestUnits: amounts as kubectl users write them; 4Gi (4.294967296 GB)
// reads back as 4Gi, a quarter core as 250m.
func TestUnits(t *testing.T) {
	for _, tc := range []struct{ got, want string }{
		{CPU(0.25), "250m"}, {CPU(2), "2"}, {CPU(1.5), "1.5"}, {CPU(1.25), "1250m"}, {CPU(0.0001), "0m"}, {CPU(15.89), "15890m"},
		{Bytes(4 * (1 << 30) / 1e9), "4Gi"}, {Bytes(512 * (1 << 20) / 1e9), "512Mi"}, {Bytes(0), "0"}, {Bytes(0.0000512), "50Ki"},
		{Bytes(61.63), "57.4Gi"}, {Bytes(0.862953), "822.98Mi"},
		{Amount("memory", 4.294967296), "4Gi memory"}, {Amount("cores", 0.5), "500m cpu"}, {Amount("ssd", 10.737418240), "10Gi ephemeral-storage"},
		{Amount("pods", 3), "3 pods"}, {Amount("gpu", 1), "1 GPU"}, {Amount("nic", 2.5), "2.5 nic"},
		{Time(time.Date(2026, 11, 1, 8, 0, 0, 0, time.UTC), 106873), "2026-11-02T13:41:13Z"},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
}
