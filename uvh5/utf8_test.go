package uvh5

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
)

// TestUTF8EveryAntennaName: an antenna name h5py cannot decode as UTF-8
// is refused at whichever element it is, the first and the last
// included, naming the element; and so are the free-text fields.
func TestUTF8EveryAntennaName(t *testing.T) {
	n := len(testHeader(rand.New(rand.NewPCG(1, 1)), 4, 2, 3).AntennaNames)
	for i := range n {
		h := testHeader(rand.New(rand.NewPCG(1, 1)), 4, 2, 3)
		h.AntennaNames[i] = "A\xff"
		err := h.Validate()
		var fe *FieldError
		if !errors.As(err, &fe) || fe.Field != "AntennaNames" || !strings.Contains(err.Error(), fmt.Sprintf("element %d ", i)) {
			t.Errorf("antenna name %d of %d not UTF-8: %v", i, n, err)
		}
	}
	for field, set := range map[string]func(h *Header){
		"Instrument": func(h *Header) { h.Instrument = "\xc3" },
		"BltOrder":   func(h *Header) { h.BltOrder = "time\xfe" },
	} {
		h := testHeader(rand.New(rand.NewPCG(1, 1)), 4, 2, 3)
		set(h)
		var fe *FieldError
		if err := h.Validate(); !errors.As(err, &fe) || fe.Field != field || !strings.Contains(err.Error(), "not UTF-8") {
			t.Errorf("%s not UTF-8: %v", field, err)
		}
	}
}
