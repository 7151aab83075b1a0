package netproxy

import "fmt"

// step is what the connection does with one framed client message.
type step uint8

const (
	stepAccumulate  step = iota // part of the unit being assembled
	stepRelease                 // the unit ends with this message
	stepPassThrough             // forward now, ungated (COPY data from the client)
	stepTerminate               // forward Terminate and end the connection
)

// assembler is the release-unit state machine: it sees message types only,
// never bytes, so it can be tested and fuzzed on its own.
type assembler struct {
	profile  Profile
	types    []byte // message types of the unit being assembled
	extended bool
}

// feed classifies a message of type typ. On stepRelease, kind names the
// unit; a non-nil error fails the connection.
func (a *assembler) feed(typ byte) (st step, kind Kind, err error) {
	switch typ {
	case 'P', 'B', 'D', 'E', 'C':
		a.types = append(a.types, typ)
		a.extended = true
		return stepAccumulate, 0, nil
	case 'S':
		a.types = append(a.types, typ)
		return stepRelease, KindExtended, nil
	case 'Q':
		a.types = append(a.types, typ)
		if a.extended {
			return stepRelease, KindExtended, nil
		}
		return stepRelease, KindSimple, nil
	case 'H':
		if a.profile != ProfileFlushStages {
			return 0, 0, ErrFlushNeedsProfile
		}
		a.types = append(a.types, typ)
		return stepRelease, KindStage, nil
	case 'F':
		if len(a.types) > 0 {
			return 0, 0, fmt.Errorf("%w: FunctionCall inside an unfinished extended-protocol cycle", ErrProtocol)
		}
		a.types = append(a.types, typ)
		return stepRelease, KindFunction, nil
	case 'd', 'c', 'f':
		if len(a.types) > 0 {
			return 0, 0, fmt.Errorf("%w: %s inside an unfinished extended-protocol cycle", ErrProtocol, typeName(typ))
		}
		return stepPassThrough, 0, nil
	case 'X':
		return stepTerminate, 0, nil
	case 'p':
		return 0, 0, fmt.Errorf("%w: password message after authentication completed", ErrProtocol)
	}
	return 0, 0, fmt.Errorf("%w: unknown client message type %s", ErrProtocol, typeName(typ))
}

// reset starts the next unit.
func (a *assembler) reset() {
	a.types = a.types[:0]
	a.extended = false
}
