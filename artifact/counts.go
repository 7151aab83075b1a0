package artifact

// Counts is what the CLI's summary and the report both say about a recorded
// order: executing release units, statement preparations released without a
// choice, and how often the release passed from one actor to another.
type Counts struct {
	Executing    int
	Preparations int
	Switches     int
}

// ReleaseCounts counts a's releases in release order.
func (a *Artifact) ReleaseCounts() Counts {
	type key struct {
		actor      string
		conn, unit int
	}
	prepare := map[key]bool{}
	for _, u := range a.Units {
		if u.Prepare {
			prepare[key{u.Actor, u.Conn, u.Unit}] = true
		}
	}
	var c Counts
	last := ""
	for _, d := range a.Schedule.Decisions {
		for _, u := range d.Release {
			if prepare[key{u.Actor, u.Conn, u.Unit}] {
				c.Preparations++
				continue
			}
			c.Executing++
			if last != "" && u.Actor != last {
				c.Switches++
			}
			last = u.Actor
		}
	}
	return c
}

// HashString renders a unit's 64-bit byte hash as recorded: 16 hex digits.
func HashString(h uint64) string {
	const digits = "0123456789abcdef"
	var b [16]byte
	for i := 15; i >= 0; i-- {
		b[i] = digits[h&15]
		h >>= 4
	}
	return string(b[:])
}
