package explain

import "strings"

// Record is what a failure's artifact keeps of its explanation
// (artifact.Artifact.Explanation): the anomaly and its cycle, which a
// search names for every failure it saves from the order alone, and the
// critical pair, the level runs and the fix once explain has run them. It
// leaves out the transactions and the other dependencies, which explain
// derives again from the order.
type Record struct {
	Anomaly Anomaly `json:"anomaly"`
	// Cycle is the shortest dependency cycle; empty: none.
	Cycle []Edge `json:"cycle"`
	// Unknown counts commands left out of the graph (Explanation.Unknown).
	Unknown      int        `json:"unknown,omitempty"`
	CriticalPair *Pair      `json:"criticalPair,omitempty"`
	Levels       []LevelRun `json:"levels,omitempty"`
	Fix          *Fix       `json:"fix,omitempty"`
	Notes        []string   `json:"notes,omitempty"`
}

// Record is what an artifact keeps of x (a copy: x is not shared).
func (x *Explanation) Record() *Record {
	r := &Record{Anomaly: x.Anomaly, Cycle: append([]Edge{}, x.Cycle...), Unknown: x.Unknown,
		Levels: append([]LevelRun(nil), x.Levels...), Notes: append([]string(nil), x.Notes...)}
	if x.CriticalPair != nil {
		p := *x.CriticalPair
		p.Tried = append([]Trial(nil), p.Tried...)
		r.CriticalPair = &p
	}
	if x.Fix != nil {
		f := *x.Fix
		r.Fix = &f
	}
	return r
}

// Line is the anomaly in one line, as a search's summary prints it:
// "Anomaly: lost update (Adya G-single): alice:1 read ...", or
// "Anomaly: none: no dependency cycle between transactions: ...".
func (a Anomaly) Line() string {
	if a.Name == "" {
		return "Anomaly: none: " + strings.TrimSuffix(a.Sentence, ".") + "."
	}
	head, body, ok := strings.Cut(a.Sentence, ": ")
	if !ok || !strings.HasPrefix(head, a.Name) {
		head, body = a.Name, a.Sentence
	}
	if a.Adya != "" {
		if h, found := strings.CutSuffix(head, ")"); found {
			head = h + "; Adya " + a.Adya + ")"
		} else {
			head += " (Adya " + a.Adya + ")"
		}
	}
	return "Anomaly: " + head + ": " + strings.TrimSuffix(body, ".") + "."
}

// The values an explanation's fields take, one list each: a reader of an
// untrusted record (artifact.Validate, the report page) accepts these only.
var (
	// Names are the anomalies Name names ("" is no cycle).
	Names = []string{LostUpdate, WriteSkew, ReadSkew, Phantom, ReadOnlyAnomaly, CircularFlow, DirtyWrite}
	// AdyaNames are the phenomena in Adya's terms.
	AdyaNames = []string{"G0", "G1c", "G-single", "G2-item", "G2"}
	// DepKinds are the kinds of dependency.
	DepKinds = []DepKind{WW, WR, RW}
	// FixClasses are the classes of fix Verdict and Explain give.
	FixClasses = []string{FixRepeatableRead, FixSerializable, FixLocking, FixRetry, FixUnknown}
	// LevelNames are the isolation levels a level run may name.
	LevelNames = []string{"read committed", "repeatable read", "serializable"}
)
