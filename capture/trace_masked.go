package capture

import (
	"bytes"
	"slices"

	"github.com/pginterleave/interleave/internal/redact"
)

// matchMasked matches a client write that no unit's hash names to the next
// unit of its connection, when the write holds masked bytes and the SQL it
// names is the unit's: an artifact's units hash the bytes that were sent,
// its capture keeps them with the secrets masked (Redact), so a unit that
// held a secret hashes differently in the capture. sql is what the write
// names, followed as the recorder follows it (Statements).
func (st *streamTracer) matchMasked(data []byte, sql []string) *UnitInfo {
	if st.next >= len(st.units) || bytes.IndexByte(data, redact.MaskByte) < 0 {
		return nil
	}
	u := st.units[st.next]
	if len(u.SQL) == 0 || !slices.Equal(u.SQL, sql) {
		return nil
	}
	st.next++
	return &u
}
