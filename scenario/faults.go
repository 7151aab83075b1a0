package scenario

import (
	"github.com/pginterleave/interleave/search"
)

// decodeFaults reads the options faults (a comma-separated list of fault
// kinds, as --faults takes) and max-faults.
func decodeFaults(d *decoder, f field, o *search.Options) error {
	if f.key == "max-faults" {
		var err error
		o.MaxFaults, err = d.integer(f.value, f.key)
		return err
	}
	v, err := d.str(f.value, f.key)
	if err != nil {
		return err
	}
	if err := o.Faults.Set(v); err != nil {
		return d.errAt(orAt(f.value, f.keyAt), "%s: %v", f.key, err)
	}
	return nil
}
