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

func parseUUID(s []byte, u *[16]byte) bool {
	if len(s) >= 9 && equalFoldASCII(s[:9], "urn:uuid:") {
		s = s[9:]
	}
	if len(s) >= 2 && s[0] == '{' && s[len(s)-1] == '}' {
		s = s[1 : len(s)-1]
	}
	// Hyphens may stand anywhere, as Python's UUID() drops them all.
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
