package schema

import (
	"fmt"
	"net/netip"
)

// convertUUID accepts what Python's uuid.UUID (cqlsh's parser) accepts:
// 32 hex digits with hyphens anywhere (canonically 8-4-4-4-12), optionally
// inside braces and after "urn:uuid:".
func convertUUID(dst, field []byte) ([]byte, error) {
	var u [16]byte
	if !parseUUID(field, &u) {
		return dst, errNotUUID
	}
	return append(dst, u[:]...), nil
}

// convertTimeUUID is convertUUID restricted to version 1, the only version
// the server accepts for timeuuid.
func convertTimeUUID(dst, field []byte) ([]byte, error) {
	var u [16]byte
	if !parseUUID(field, &u) {
		return dst, errNotUUID
	}
	if v := u[6] >> 4; v != 1 {
		return dst, fmt.Errorf("version %d UUID, a timeuuid must be version 1", v)
	}
	return append(dst, u[:]...), nil
}

// parseUUID reads a UUID as convertUUID accepts it into u.
func parseUUID(s []byte, u *[16]byte) bool {
	if len(s) >= 9 && equalFoldASCII(s[:9], "urn:uuid:") {
		s = s[9:]
	}
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	if len(s) == 36 && s[8] == '-' && s[13] == '-' && s[18] == '-' && s[23] == '-' {
		// The canonical form, nearly every UUID in a file: a quarter
		// of the loop's time.
		var bad byte
		for i, p := range uuidDigits {
			hi, lo := hexValues[s[p]], hexValues[s[p+1]]
			bad |= hi | lo
			u[i] = hi<<4 | lo
		}
		return bad&0xf0 == 0 // a non-digit is 0xff
	}
	return parseUUIDLoose(s, u)
}

// parseUUIDLoose reads 32 hex digits with hyphens anywhere, as Python's
// UUID() drops them all.
func parseUUIDLoose(s []byte, u *[16]byte) bool {
	*u = [16]byte{}
	j := 0 // hex digits so far
	for _, c := range s {
		if c == '-' {
			continue
		}
		d, ok := unhex(c)
		if !ok || j == 32 {
			return false
		}
		u[j/2] |= d << (4 * (1 - j%2))
		j++
	}
	return j == 32
}

// uuidDigits are the offsets of the 16 digit pairs of a canonical UUID,
// 8-4-4-4-12.
var uuidDigits = [16]int{0, 2, 4, 6, 9, 11, 14, 16, 19, 21, 24, 26, 28, 30, 32, 34}

// convertInet accepts an IPv4 address (4 bytes on the wire) or an IPv6
// address (16 bytes); IPv4-mapped IPv6 addresses keep their 16 bytes, as
// Python's inet_pton and the server do. Zones are not addresses.
func convertInet(dst, field []byte) ([]byte, error) {
	a, err := netip.ParseAddr(bstr(field))
	if err != nil || a.Zone() != "" {
		return dst, errNotInet
	}
	if a.Is4() {
		b := a.As4()
		return append(dst, b[:]...), nil
	}
	b := a.As16()
	return append(dst, b[:]...), nil
}
