package store

// recordText reads only what search matches and orders by — first and last name, company,
// email and the default channel's address — without building a Contact: a search checks
// hundreds of candidates and needs nothing else of them.
func recordText(rec []byte) (first, last, company, email, phone string, err error) {
	r := recReader{b: rec}
	if r.byte() != contactRecordVersion {
		return "", "", "", "", "", errBadRecord
	}
	r.uvarint()
	firstPhone, havePhone := "", false
	for len(r.b) > 0 && r.err == nil {
		switch tag := r.byte(); tag {
		case ctFirst:
			first = r.str()
		case ctLast:
			last = r.str()
		case ctCompany:
			company = r.str()
		case ctEmail:
			email = r.str()
		case ctAvatar, ctSource, ctTenant, ctFlags, ctProps, ctAddresses, ctTimeZone:
			r.raw()
		case ctSourceCode:
			r.byte()
		case ctCreated, ctCreatedByID, ctUpdated, ctLastIn, ctLastOut:
			r.varint()
		case ctChannel:
			addr, isDefault := "", false
			for done := false; !done && r.err == nil; {
				switch r.byte() {
				case chEnd:
					done = true
				case chID:
					if len(r.b) < 16 {
						r.err = errBadRecord
					} else {
						r.b = r.b[16:]
					}
				case chAddress:
					addr = r.str()
				case chIDNext:
					r.uvarint()
				case chIDText, chType, chCarrier, chContact, chBlockedBy:
					r.raw()
				case chDefault:
					isDefault = true
				case chSMS:
				case chVerified, chBlocked, chCreated, chUpdated:
					r.varint()
				default:
					r.err = errBadRecord
				}
			}
			// Contact.Phone: the default channel's address, else the first channel's.
			if !havePhone {
				firstPhone, havePhone = addr, true
			}
			if isDefault && phone == "" {
				phone = addr
			}
		default:
			r.err = errBadRecord
		}
	}
	if phone == "" {
		phone = firstPhone
	}
	return first, last, company, email, phone, r.err
}
