package synth

import (
	"errors"

	store "placelab/sql"
)

// WriteInventory writes sku and machine rows described by spec into w.
// (Placeholder signature; the generator fills it in.)
func WriteInventory(w *store.Writer, spec string, seed int64) (machines int, err error) {
	return 0, errors.New("synth: inventory not implemented yet")
}
