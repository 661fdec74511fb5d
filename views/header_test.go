package views

import "testing"

func TestInitials(t *testing.T) {
	for name, want := range map[string]string{
		"Dana Admin":                  "DA",
		"José Núñez de la Concepción": "JN",
		"ana":                         "A",
		"ana.lima@example.com":        "A",
		"  Bo   Chen  ":               "BC",
		"":                            "",
		"élodie martin":               "ÉM",
	} {
		if got := initials(name); got != want {
			t.Errorf("initials(%q) = %q, want %q", name, got, want)
		}
	}
}
