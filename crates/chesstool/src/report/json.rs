//! The little JSON the binary writes: string literals for JSONL records
//! and schemas.

/// Appends `s` as a JSON string. Every control character (C0, DEL and
/// C1) is written as a JSON escape (`\n`, `\u001b`, `\u0085`), so a line
/// carries none raw and the value reads back as it was.
#[inline]
pub fn push_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    let bytes = s.as_bytes();
    // A C1 control is `0xc2` then `0x80..=0x9f`: `±` and `°` (`0xc2
    // 0xb1`, `0xc2 0xb0`) keep the fast path (a reviewer's finding).
    let c1 = |i: usize| matches!(bytes.get(i + 1), Some(0x80..=0x9f));
    if !bytes
        .iter()
        .enumerate()
        .any(|(i, &b)| b < 0x20 || b == b'"' || b == b'\\' || b == 0x7f || (b == 0xc2 && c1(i)))
    {
        out.extend_from_slice(bytes);
    } else {
        for c in s.chars() {
            match c {
                '"' => out.extend_from_slice(b"\\\""),
                '\\' => out.extend_from_slice(b"\\\\"),
                '\n' => out.extend_from_slice(b"\\n"),
                '\r' => out.extend_from_slice(b"\\r"),
                '\t' => out.extend_from_slice(b"\\t"),
                c if c.is_control() => {
                    const HEX: &[u8; 16] = b"0123456789abcdef";
                    let code = u32::from(c) as usize;
                    out.extend_from_slice(b"\\u00");
                    out.push(HEX[(code >> 4) & 15]);
                    out.push(HEX[code & 15]);
                }
                c => {
                    let mut buf = [0; 4];
                    out.extend_from_slice(c.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
    }
    out.push(b'"');
}

#[cfg(test)]
mod tests {
    #[test]
    fn a_non_control_character_after_0xc2_is_written_as_it_is() {
        let mut s = Vec::new();
        super::push_str(&mut s, "±1.5 °C «x»");
        assert_eq!(String::from_utf8(s).unwrap(), "\"±1.5 °C «x»\"");
    }

    #[test]
    fn escapes() {
        let mut s = Vec::new();
        super::push_str(&mut s, "a\"b\\c\nd\u{1}é\u{1f}\u{7f}\u{85}\u{a0}");
        assert_eq!(
            String::from_utf8(s).unwrap(),
            "\"a\\\"b\\\\c\\nd\\u0001é\\u001f\\u007f\\u0085\u{a0}\""
        );
    }
}
