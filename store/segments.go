package store

// SMS segment counting: GSM-7 texts take 160 characters in one segment and 153 per segment
// when split, others (UCS-2) 70 and 67. It lives in store because the store computes the
// count when it queues a message, and the store may not import carrier.

// SMS text encodings, as SMSEncoding reports them.
const (
	EncodingGSM7 = "GSM-7"
	EncodingUCS2 = "UCS-2"
)

// Segment sizes (3GPP TS 23.040): a single SMS holds 140 octets, 160 septets or 70 UTF-16 code
// units; a part of a concatenated SMS gives 6 octets to its header, leaving 153 or 67.
const (
	gsm7Single = 160
	gsm7Part   = 153
	ucs2Single = 70
	ucs2Part   = 67
)

// gsm7Basic is the GSM 03.38 default alphabet: each costs one septet. ESC (0x1B) is absent on
// purpose: it is the escape to the extension table, not a character one can send.
var gsm7Basic = func() map[rune]bool {
	m := map[rune]bool{}
	for _, r := range "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?" +
		"¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà" {
		m[r] = true
	}
	return m
}()

// gsm7Extension is the GSM 03.38 extension table: each costs two septets (ESC + code), and
// the pair is never split across parts. Form feed is in the table too, though rarely sent.
var gsm7Extension = map[rune]bool{
	'\f': true, '^': true, '{': true, '}': true, '\\': true, '[': true, '~': true, ']': true, '|': true, '€': true,
}

// SMSEncoding is the encoding a carrier uses for text: "GSM-7" when every character is in the
// GSM 03.38 alphabet or its extension table (the empty text included), else "UCS-2".
func SMSEncoding(text string) string {
	if isGSM7(text) {
		return EncodingGSM7
	}
	return EncodingUCS2
}

// Segments is how many SMS parts text takes. GSM-7: up to 160 septets is one part, longer
// texts use parts of 153, and an extension character (^ { } \ [ ~ ] | € and form feed) costs two
// septets that stay in one part. UCS-2 (any character outside GSM-7): up to 70 UTF-16 code
// units is one part, longer texts use parts of 67, and a character outside the BMP (an emoji)
// costs two units that stay in one part. The empty text is 0: a media-only message has no text
// segments, and what to bill or show for it is the caller's decision.
func Segments(text string) int {
	if text == "" {
		return 0
	}
	gsm := isGSM7(text)
	single, part := ucs2Single, ucs2Part
	if gsm {
		single, part = gsm7Single, gsm7Part
	}
	cost := func(r rune) int {
		if gsm {
			if gsm7Extension[r] {
				return 2
			}
			return 1
		}
		if r > 0xFFFF {
			return 2 // a surrogate pair
		}
		return 1
	}

	total := 0
	for _, r := range text {
		total += cost(r)
	}
	if total <= single {
		return 1
	}
	// Pack greedily: a character that does not fit in what is left of a part starts the next
	// one, which is how phones and carriers split (an escape or surrogate pair is never cut).
	parts, used := 1, 0
	for _, r := range text {
		c := cost(r)
		if used+c > part {
			parts++
			used = 0
		}
		used += c
	}
	return parts
}

func isGSM7(text string) bool {
	for _, r := range text {
		if !gsm7Basic[r] && !gsm7Extension[r] {
			return false
		}
	}
	return true
}
