package store

import "strings"

// numFailureGroups is how many groups FailureGroups has.
const numFailureGroups = 7

// FailureGroups name, in plain words, the groups the reports sort failed texts into by the
// carrier's reason; the last one takes every reason the others do not.
var FailureGroups = [numFailureGroups]string{
	"Phone unreachable",
	"Number not in service",
	"Landline or cannot take texts",
	"Filtered as spam",
	"Sending number not registered",
	"Recipient opted out",
	"Other reasons",
}

// failureGroupOf is the index in FailureGroups of a failed message's provider error.
func failureGroupOf(providerErr string) int {
	switch CarrierErrorCode(providerErr) {
	case 30003, 30008:
		return 0
	case 30005, 21211, 21612:
		return 1
	case 30006, 21614, 21408:
		return 2
	case 30007:
		return 3
	case 30032, 30034, 30035, 30033:
		return 4
	case 21610:
		return 5
	}
	// A copy skipped at the claim because its recipient opted out meanwhile.
	if strings.HasPrefix(providerErr, "recipient ") && strings.HasSuffix(providerErr, " has opted out") {
		return 5
	}
	return len(FailureGroups) - 1
}
