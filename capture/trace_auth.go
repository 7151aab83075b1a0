package capture

import (
	"encoding/binary"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// authMessage decodes an authentication request ('R'). Its code names the
// client's answer, which the proxy recorded redacted.
func (st *streamTracer) authMessage(body []byte) Message {
	m := Message{From: fromServer, Length: 5 + len(body)}
	if len(body) < 4 {
		return undecodable(fromServer, 0, m.Length, "an authentication message without its type")
	}
	code := binary.BigEndian.Uint32(body)
	st.lastAuth = code
	m.Type = authName(code)
	msg := authRequest(code)
	if msg == nil {
		return m
	}
	if err := safeDecode(msg, body); err != nil {
		return undecodable(fromServer, 0, m.Length, m.Type+": "+err.Error())
	}
	if s, ok := msg.(*pgproto3.AuthenticationSASL); ok {
		m.Detail = "mechanisms " + strings.Join(s.AuthMechanisms, ", ")
	}
	return m
}

// authRequest is the pgproto3 message that decodes the authentication
// request code, nil for the rest: SASL continuations (recorded redacted by
// the proxy), GSS continuations and others show their type alone.
func authRequest(code uint32) pgproto3.BackendMessage {
	switch code {
	case pgproto3.AuthTypeOk:
		return &pgproto3.AuthenticationOk{}
	case pgproto3.AuthTypeCleartextPassword:
		return &pgproto3.AuthenticationCleartextPassword{}
	case pgproto3.AuthTypeMD5Password:
		return &pgproto3.AuthenticationMD5Password{}
	case pgproto3.AuthTypeGSS:
		return &pgproto3.AuthenticationGSS{}
	case pgproto3.AuthTypeSASL:
		return &pgproto3.AuthenticationSASL{}
	}
	return nil
}

func authName(code uint32) string {
	switch code {
	case pgproto3.AuthTypeOk:
		return "AuthenticationOk"
	case 2:
		return "AuthenticationKerberosV5"
	case pgproto3.AuthTypeCleartextPassword:
		return "AuthenticationCleartextPassword"
	case pgproto3.AuthTypeMD5Password:
		return "AuthenticationMD5Password"
	case pgproto3.AuthTypeSCMCreds:
		return "AuthenticationSCMCredential"
	case pgproto3.AuthTypeGSS:
		return "AuthenticationGSS"
	case pgproto3.AuthTypeGSSCont:
		return "AuthenticationGSSContinue"
	case pgproto3.AuthTypeSSPI:
		return "AuthenticationSSPI"
	case pgproto3.AuthTypeSASL:
		return "AuthenticationSASL"
	case pgproto3.AuthTypeSASLContinue:
		return "AuthenticationSASLContinue"
	case pgproto3.AuthTypeSASLFinal:
		return "AuthenticationSASLFinal"
	}
	return fmt.Sprintf("Authentication(%d)", code)
}

// redacted is the marker the proxy recorded instead of an authentication
// message.
func (st *streamTracer) redacted(r Record, from string) Message {
	m := Message{AtUS: micros(r.At), From: from, Length: r.Length, Redacted: true,
		Detail: fmt.Sprintf("[redacted: %d bytes]", r.Length)}
	if from == fromClient {
		m.Type = authResponseName(st.lastAuth)
	} else {
		m.Type = "Authentication"
		if code, ok := redactedAuthCode(r); ok {
			m.Type = authName(code)
		}
	}
	if r.What != "" {
		m.Detail += " " + r.What
	}
	return m
}

// redactedAuthCode reads the authentication request code from the header
// the proxy kept of a redacted server message.
func redactedAuthCode(r Record) (uint32, bool) {
	if len(r.Header) >= 9 && r.Header[0] == 'R' {
		return binary.BigEndian.Uint32(r.Header[5:9]), true
	}
	return 0, false
}

// authResponseName names the client's answer to the authentication request
// code.
func authResponseName(code uint32) string {
	switch code {
	case pgproto3.AuthTypeSASL:
		return "SASLInitialResponse"
	case pgproto3.AuthTypeSASLContinue, pgproto3.AuthTypeSASLFinal:
		return "SASLResponse"
	case pgproto3.AuthTypeGSS, pgproto3.AuthTypeGSSCont:
		return "GSSResponse"
	}
	return "PasswordMessage"
}
