//! The little JSON the binary writes: string literals for JSONL records
//! and schemas.

/// Appends `s` to `out` as a JSON string literal.
#[inline]
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    if !bytes.iter().any(|&b| b < 0x20 || b == b'"' || b == b'\\') {
        out.extend_from_slice(bytes);
    } else {
        for &b in bytes {
            match b {
                b'"' => out.extend_from_slice(b"\\\""),
                b'\\' => out.extend_from_slice(b"\\\\"),
                b'\n' => out.extend_from_slice(b"\\n"),
                b'\r' => out.extend_from_slice(b"\\r"),
                b'\t' => out.extend_from_slice(b"\\t"),
                b if b < 0x20 => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[usize::from(b >> 4)]);
                    out.push(HEX[usize::from(b & 15)]);
                }
                b => out.push(b),
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn escapes() {
        let mut s = Vec::new();
        super::push_str(&mut s, "a\"b\\c\nd\u{1}é\u{1f}");
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "\"a\\\"b\\\\c\\nd\\u0001é\\u001f\""
        );
    }
}
