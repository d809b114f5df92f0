package schema

import (
	"fmt"
	"net/netip"
)

// convertUUID accepts what Python's uuid.UUID (cqlsh's parser) accepts in
// practice: 32 hex digits, either bare or hyphenated as 8-4-4-4-12,
// optionally inside braces and after "urn:uuid:".
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

func parseUUID(s []byte, u *[16]byte) bool {
	if len(s) >= 9 && equalFoldASCII(s[:9], "urn:uuid:") {
		s = s[9:]
	}
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	switch len(s) {
	case 36:
		if s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
			return false
		}
	case 32:
	default:
		return false
	}
	j := 0
	for i := 0; i < len(s); {
		if len(s) == 36 && (i == 8 || i == 13 || i == 18 || i == 23) {
			i++
			continue
		}
		hi, ok1 := unhex(s[i])
		lo, ok2 := unhex(s[i+1])
		if !ok1 || !ok2 {
			return false
		}
		u[j] = hi<<4 | lo
		j++
		i += 2
	}
	return true
}

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
