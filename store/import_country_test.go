package store

import (
	"testing"
)

// National numbers are read in the workspace's country: a UK workspace's "020 7183 8750" is
// +44 20 7183 8750, a US one's "(415) 555-0123" is +1 415 555 0123; E.164 is taken as written
// in both, and the rejection says which national format the row could have used.
func TestImportNationalNumbersFollowTheWorkspaceCountry(t *testing.T) {
	s, us := impStore(t)
	gbWS, err := s.CreateWorkspace("London")
	if err != nil {
		t.Fatal(err)
	}
	gb := "gb"
	if _, err := s.UpdateWorkspace(gbWS.ID, WorkspaceSettings{Country: &gb}); err != nil {
		t.Fatal(err)
	}
	rep := impRun(t, s, gbWS.ID, "firstName,phone\nAl,020 7183 8750\nBea,+14155550123\nCy,12\n")
	if rep.Imported != 2 || rep.Rejected != 1 {
		t.Fatalf("UK workspace: %+v", rep)
	}
	if _, err := s.ContactByPhone(gbWS.ID, "+442071838750"); err != nil {
		t.Errorf("020 7183 8750 in a UK workspace: %v, want +442071838750", err)
	}
	if want := "phone: " + importPhoneMessage("GB"); rep.Errors[0].Reason != want || rep.Errors[0].Line != 4 {
		t.Errorf("rejection %+v, want line 4 %q", rep.Errors[0], want)
	}
	rep = impRun(t, s, us, "firstName,phone\nDi,(415) 555-0123\n")
	if rep.Imported != 1 {
		t.Fatalf("US workspace: %+v", rep)
	}
	if _, err := s.ContactByPhone(us, "+14155550123"); err != nil {
		t.Errorf("(415) 555-0123 in a US workspace: %v", err)
	}
	// The preview reads rows by the same rule.
	rows, err := s.PreviewImport(gbWS.ID, []string{"phone"}, [][]string{{"07700 900123"}})
	if err != nil || rows[0].Phone != "+447700900123" || rows[0].Problem != "" {
		t.Errorf("preview of a UK mobile: %+v, %v", rows, err)
	}
}
