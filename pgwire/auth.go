package pgwire

import (
	"crypto/hmac"
	"crypto/pbkdf2"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net"
	"strings"

	"github.com/jackc/pgx/v5/pgproto3"
)

// scramIterations is the PBKDF2 iteration count the server asks for
// (Postgres's default).
const scramIterations = 4096

// authenticate checks the client's credentials: trust when no users are
// configured, SCRAM-SHA-256 (RFC 5802/7677, no channel binding) otherwise.
// Passwords never cross the wire, with or without TLS.
func (s *session) authenticate() error {
	if len(s.srv.cfg.Users) == 0 {
		return nil
	}
	password, known := s.srv.cfg.Users[s.user]
	err := s.scram(password)
	if err == nil && known {
		s.srv.auth.succeeded(s.remoteHost())
		return nil
	}
	if err == nil {
		err = errors.New("unknown user")
	}
	if hungUp(err) {
		// psql hangs up at the password request to ask the user for one:
		// nobody waits for an answer, so this is no failed guess.
		return fmt.Errorf("authenticate %q: %w", s.user, err)
	}
	s.delayFailure()
	s.fatal(codeInvalidAuth, "password authentication failed for user \""+s.user+"\"")
	return fmt.Errorf("authenticate %q: %w", s.user, err)
}

// delayFailure waits before a failed login is answered (see authDelay)
// and logs the failure.
func (s *session) delayFailure() {
	host := s.remoteHost()
	n, d := s.srv.auth.failed(host)
	s.srv.cfg.Logger.Warn("pgwire: password authentication failed", s.logAttrs("failures_in_a_row", n, "delay", d)...)
	_ = s.srv.auth.sleep(s.srv.ctx, d)
}

// remoteHost is the client's address without its port: the key of the
// failed-login delay.
func (s *session) remoteHost() string {
	addr := s.conn.RemoteAddr().String()
	if host, _, err := net.SplitHostPort(addr); err == nil {
		return host
	}
	return addr
}

// hungUp reports whether err is the client closing the connection.
func hungUp(err error) bool {
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, net.ErrClosed)
}

// scram runs the SCRAM-SHA-256 exchange against password; it returns an
// error when the client's proof does not match (or the exchange is
// malformed). An unknown user runs it with an empty password and fails.
func (s *session) scram(password string) error {
	s.be.Send(&pgproto3.AuthenticationSASL{AuthMechanisms: []string{"SCRAM-SHA-256"}})
	if err := s.be.Flush(); err != nil {
		return err
	}
	_ = s.be.SetAuthType(pgproto3.AuthTypeSASL)
	msg, err := s.be.Receive()
	if err != nil {
		return err
	}
	first, ok := msg.(*pgproto3.SASLInitialResponse)
	if !ok || first.AuthMechanism != "SCRAM-SHA-256" {
		return fmt.Errorf("want SASLInitialResponse for SCRAM-SHA-256, got %T", msg)
	}
	// client-first-message: gs2-header "n,," or "y,," then n=user,r=nonce.
	cf := string(first.Data)
	var gs2 string
	switch {
	case strings.HasPrefix(cf, "n,,"), strings.HasPrefix(cf, "y,,"):
		gs2 = cf[:3]
	default:
		return errors.New("SCRAM: channel binding is not supported")
	}
	bare := cf[3:]
	cnonce := ""
	for _, attr := range strings.Split(bare, ",") {
		if strings.HasPrefix(attr, "r=") {
			cnonce = attr[2:]
		}
	}
	if cnonce == "" {
		return errors.New("SCRAM: client nonce missing")
	}
	salt := make([]byte, 16)
	nb := make([]byte, 18)
	_, _ = rand.Read(salt)
	_, _ = rand.Read(nb)
	nonce := cnonce + base64.StdEncoding.EncodeToString(nb)
	serverFirst := fmt.Sprintf("r=%s,s=%s,i=%d", nonce, base64.StdEncoding.EncodeToString(salt), scramIterations)
	s.be.Send(&pgproto3.AuthenticationSASLContinue{Data: []byte(serverFirst)})
	if err := s.be.Flush(); err != nil {
		return err
	}
	_ = s.be.SetAuthType(pgproto3.AuthTypeSASLContinue)
	msg, err = s.be.Receive()
	if err != nil {
		return err
	}
	final, ok := msg.(*pgproto3.SASLResponse)
	if !ok {
		return fmt.Errorf("want SASLResponse, got %T", msg)
	}
	// client-final-message: c=<b64 gs2 header>,r=<nonce>,p=<proof>.
	cfin := string(final.Data)
	i := strings.LastIndex(cfin, ",p=")
	if i < 0 {
		return errors.New("SCRAM: client proof missing")
	}
	withoutProof, proofB64 := cfin[:i], cfin[i+3:]
	var cbind, rnonce string
	for _, attr := range strings.Split(withoutProof, ",") {
		switch {
		case strings.HasPrefix(attr, "c="):
			cbind = attr[2:]
		case strings.HasPrefix(attr, "r="):
			rnonce = attr[2:]
		}
	}
	if cbind != base64.StdEncoding.EncodeToString([]byte(gs2)) || rnonce != nonce {
		return errors.New("SCRAM: channel binding or nonce mismatch")
	}
	proof, err := base64.StdEncoding.DecodeString(proofB64)
	if err != nil || len(proof) != sha256.Size {
		return errors.New("SCRAM: malformed proof")
	}
	salted, err := pbkdf2.Key(sha256.New, password, salt, scramIterations, sha256.Size)
	if err != nil {
		return err
	}
	clientKey := hmacSHA256(salted, "Client Key")
	storedKey := sha256.Sum256(clientKey)
	authMessage := bare + "," + serverFirst + "," + withoutProof
	clientSig := hmacSHA256(storedKey[:], authMessage)
	recovered := make([]byte, len(proof))
	for j := range proof {
		recovered[j] = proof[j] ^ clientSig[j]
	}
	got := sha256.Sum256(recovered)
	if subtle.ConstantTimeCompare(got[:], storedKey[:]) != 1 {
		return errors.New("SCRAM: wrong password")
	}
	serverSig := hmacSHA256(hmacSHA256(salted, "Server Key"), authMessage)
	s.be.Send(&pgproto3.AuthenticationSASLFinal{Data: []byte("v=" + base64.StdEncoding.EncodeToString(serverSig))})
	return nil
}

func hmacSHA256(key []byte, msg string) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte(msg))
	return h.Sum(nil)
}
