package capture

import (
	"github.com/pginterleave/interleave/internal/redact"
	"github.com/pginterleave/interleave/netproxy"
)

// Redact returns a copy of raw, a capture's records, with every form of the
// secrets and the value of every PASSWORD literal masked (redact.MaskByte,
// byte for byte) in the bytes of both directions and in close reasons:
// SQL text, Bind parameters, rows, server errors and notices. Each
// direction of a stream is masked as one run of bytes, so a secret that
// straddles two reads goes too. Lengths are kept: the masked capture frames
// and decodes as the original did, and its records keep their times; raw
// is not written. A capture that does not decode is an error.
func Redact(raw []byte, s redact.Secrets) ([]byte, error) {
	out := append([]byte(nil), raw...)
	recs, err := Decode(out) // each Data aliases out
	if err != nil {
		return nil, err
	}
	type key struct {
		actor, stream int
		dir           netproxy.Direction
	}
	runs := map[key][]int{}
	var order []key
	for i, r := range recs {
		switch r.Kind {
		case KindClosed:
			s.Mask(r.Data)
		case KindBytes:
			k := key{r.Actor, r.Stream, r.Dir}
			if runs[k] == nil {
				order = append(order, k)
			}
			runs[k] = append(runs[k], i)
		}
	}
	var buf []byte
	for _, k := range order {
		idx := runs[k]
		if len(idx) == 1 {
			s.Mask(recs[idx[0]].Data)
			continue
		}
		buf = buf[:0]
		for _, i := range idx {
			buf = append(buf, recs[i].Data...)
		}
		if !s.Mask(buf) {
			continue
		}
		off := 0
		for _, i := range idx {
			off += copy(recs[i].Data, buf[off:])
		}
	}
	return out, nil
}
