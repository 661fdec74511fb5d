package web

import (
	"bytes"
	"encoding/base64"
	"errors"
	"image/png"
	"net/http"
	"strings"

	"github.com/pquerna/otp"

	"switchboard/store"
	"switchboard/views"
)

// totpIssuer names the server in authenticator apps.
const totpIssuer = "Switchboard"

// pending returns the request's session when it still owes stage (the code, or enrolment).
func (ss *Sessions) pending(r *http.Request, stage string) (browserSession, bool) {
	b, ok := ss.lookup(r)
	return b, ok && b.row.Stage == stage
}

// PendingStage is the stage the request's session still owes ("" when none, or no session):
// pages send such a browser to the code or enrolment page rather than to sign in again.
func (ss *Sessions) PendingStage(r *http.Request) string {
	b, _ := ss.lookup(r)
	return b.row.Stage
}

// codePage is GET /login/code: the second step of sign-in.
func (ss *Sessions) codePage(w http.ResponseWriter, r *http.Request) {
	if _, ok := ss.pending(r, store.SessionStageCode); !ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	renderBare(w, r, http.StatusOK, "Two-factor code", views.LoginCode(views.CodeForm{Next: localNext(r.URL.Query().Get("next"))}))
}

// code is POST /login/code: a TOTP code (not used before) or a recovery code completes the
// session. Wrong codes count against the account like wrong passwords.
func (ss *Sessions) code(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	b, ok := ss.pending(r, store.SessionStageCode)
	if !ok {
		http.Redirect(w, r, "/login", http.StatusSeeOther)
		return
	}
	f := views.CodeForm{Next: localNext(r.PostForm.Get("next"))}
	now := ss.now()
	refund, allowed := ss.limits.attempt(now, "code:"+b.user.ID)
	if !allowed {
		f.Error = "Too many wrong codes. Wait a minute and try again."
		w.Header().Set("Retry-After", "60")
		renderBare(w, r, http.StatusTooManyRequests, "Two-factor code", views.LoginCode(f))
		return
	}
	if _, err := ss.s.CheckSecondFactor(b.user.ID, r.PostForm.Get("code"), now); err != nil {
		f.Error = codeError(err)
		renderBare(w, r, http.StatusUnauthorized, "Two-factor code", views.LoginCode(f))
		return
	}
	refund()
	if err := ss.advance(r, ""); err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	ss.afterPassword(w, r, b.user, "", f.Next)
}

// codeError is the message of a refused code.
func codeError(err error) string {
	var verrs store.ValidationError
	if errors.As(err, &verrs) {
		return capitalize(verrs[0].Field + " " + verrs[0].Message + ".")
	}
	var se *store.Error
	if errors.As(err, &se) {
		return capitalize(se.Msg) + "."
	}
	return "Something went wrong. Please try again."
}

// enrolPage is GET /login/enrol: a user without two-factor on a server that requires it sets it
// up before anything else.
func (ss *Sessions) enrolPage(w http.ResponseWriter, r *http.Request) {
	b, ok := ss.pending(r, store.SessionStageEnrol)
	if !ok {
		ss.notEnrolling(w, r, r.URL.Query().Get("next"))
		return
	}
	v, err := enrolView(ss.s, b.user.ID, "/login/enrol")
	if err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	v.Next, v.Required = localNext(r.URL.Query().Get("next")), true
	renderBare(w, r, http.StatusOK, "Set up two-factor", views.Enrol(v))
}

// enrol is POST /login/enrol: the first code confirms the enrolment and completes the session;
// the recovery codes are shown this once.
func (ss *Sessions) enrol(w http.ResponseWriter, r *http.Request) {
	if err := readForm(w, r); err != nil {
		formError(w, r, err)
		return
	}
	b, ok := ss.pending(r, store.SessionStageEnrol)
	if !ok {
		ss.notEnrolling(w, r, r.PostForm.Get("next"))
		return
	}
	next := localNext(r.PostForm.Get("next"))
	codes, err := ss.s.ConfirmTwoFactor(b.user.ID, r.PostForm.Get("code"), ss.now())
	if err != nil {
		v, verr := enrolView(ss.s, b.user.ID, "/login/enrol")
		if verr != nil {
			renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
			return
		}
		v.Next, v.Required, v.Error = next, true, codeError(err)+" Scan the new QR code and try again."
		renderBare(w, r, http.StatusUnprocessableEntity, "Set up two-factor", views.Enrol(v))
		return
	}
	if err := ss.advance(r, ""); err != nil {
		renderMessage(w, r, http.StatusInternalServerError, "Something went wrong", "Please try again.")
		return
	}
	if next == "" {
		next = "/"
	}
	renderBare(w, r, http.StatusOK, "Two-factor is on", views.RecoveryCodes(codes, next))
}

// notEnrolling answers the enrolment page for a session that owes no enrolment: a signed-in
// one (the requirement was lifted meanwhile) goes on to next, any other to sign in.
func (ss *Sessions) notEnrolling(w http.ResponseWriter, r *http.Request, next string) {
	if _, ok := ss.CurrentUser(r); ok {
		if next = localNext(next); next == "" {
			next = "/"
		}
		http.Redirect(w, r, next, http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, "/login", http.StatusSeeOther)
}

// enrolView starts an enrolment (a new pending secret) and renders its QR code.
func enrolView(s *store.Store, userID, action string) (views.EnrolView, error) {
	uri, secret, err := s.StartTwoFactor(userID, totpIssuer)
	if err != nil {
		return views.EnrolView{}, err
	}
	qr, err := qrDataURI(uri)
	if err != nil {
		return views.EnrolView{}, err
	}
	return views.EnrolView{Action: action, QR: qr, Secret: spaced(secret)}, nil
}

// qrDataURI renders the otpauth:// URI as a PNG QR code in a data: URI, so the secret never
// travels in a URL of its own.
func qrDataURI(uri string) (string, error) {
	key, err := otp.NewKeyFromURL(uri)
	if err != nil {
		return "", err
	}
	img, err := key.Image(200, 200)
	if err != nil {
		return "", err
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		return "", err
	}
	return "data:image/png;base64," + base64.StdEncoding.EncodeToString(buf.Bytes()), nil
}

// spaced groups a base32 secret by four for typing.
func spaced(s string) string {
	var b strings.Builder
	for i, c := range s {
		if i > 0 && i%4 == 0 {
			b.WriteByte(' ')
		}
		b.WriteRune(c)
	}
	return b.String()
}
