package k8sgen

import (
	"errors"

	"placelab/datasets"
)

// Sentinel errors. Options errors wrap ErrOptions; a bad CSV value is a
// *RowError wrapping ErrMalformed or ErrDuplicate.
var (
	ErrOptions   = errors.New("k8sgen: bad options")
	ErrMalformed = errors.New("k8sgen: malformed value")
	ErrDuplicate = errors.New("k8sgen: duplicate name")
	ErrNoNodes   = errors.New("k8sgen: no nodes")
)

// RowError says where in which CSV file a value is bad: the loaders' own
// error type (file, row — 1-based, the header is row 1; 0 for the file as a
// whole — field and value).
type RowError = datasets.RowError
