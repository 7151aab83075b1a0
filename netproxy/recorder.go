package netproxy

// Direction of bytes through the proxy.
type Direction uint8

const (
	ClientToServer Direction = iota
	ServerToClient
)

// Recorder receives every byte the proxy reads and forwards. data is only
// valid during the call: implementations copy it (capture appends it to an
// arena). Calls for one stream come from at most two goroutines, one per
// direction; implementations must be safe for that.
type Recorder interface {
	// Bytes records data forwarded on stream in direction dir.
	Bytes(stream int, dir Direction, data []byte)
	// Redacted records that n bytes of an authentication message were
	// forwarded but not kept; what names the message.
	Redacted(stream int, dir Direction, header []byte, n int, what string)
	// Closed records the end of a stream and why (nil: orderly).
	Closed(stream int, err error)
}

type nopRecorder struct{}

func (nopRecorder) Bytes(int, Direction, []byte)                 {}
func (nopRecorder) Redacted(int, Direction, []byte, int, string) {}
func (nopRecorder) Closed(int, error)                            {}
