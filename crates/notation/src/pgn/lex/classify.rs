//! The lexer's byte classes in blocks of 64 bytes, as bitmasks (the
//! first stage of simdjson), and the comment skip built on them.
//!
//! This is the one module of the notation crate allowed to hold `unsafe`
//! (the tidy test names it): the `std::arch` loads. Each class has one
//! definition, [`classify_scalar`], the portable reference; the SIMD
//! paths (SSE2, which every x86-64 CPU has, and AVX2, detected at run
//! time) must give the same masks, which the tests check on random bytes
//! and on every shared PGN file, and the `classify` fuzz target on
//! whatever it finds. Other targets (aarch64 included, for now) use the
//! scalar path.
//!
//! ```
//! use notation::pgn::lex::classify::{classify, classify_scalar, BLOCK};
//!
//! let mut block = [b'x'; BLOCK];
//! block[..20].copy_from_slice(b"1. e4 { [%clk 0:03]}");
//! let masks = classify(&block);
//! assert_eq!(masks, classify_scalar(&block));
//! assert_eq!(masks.close_brace, 1 << 19);
//! assert_eq!(masks.digit & 0b11, 0b01);
//! ```

/// Bytes per classified block.
pub const BLOCK: usize = 64;

/// The bytes of a block in each class the lexer asks about: bit `i` is
/// byte `i`.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct Masks {
    /// `\n`.
    pub newline: u64,
    /// The blanks between movetext tokens: ` `, `\t`, `\r`, `.`, vertical
    /// tab and form feed (the lexer's `Class::Blank`).
    pub blank: u64,
    /// `}`: where a `{` comment ends.
    pub close_brace: u64,
    /// The bytes that end a SAN-like token: `` \t\n\r{}()!?$;.*[``,
    /// vertical tab and form feed (the lexer's `TOKEN_END`: pgn-reader's
    /// delimiters, `[`, and every blank).
    pub token_end: u64,
    /// `0`–`9`.
    pub digit: u64,
}

/// Is `byte` one of the blanks of [`Masks::blank`]?
#[inline(always)]
#[must_use]
pub const fn is_blank(byte: u8) -> bool {
    matches!(byte, b' ' | b'\t' | b'\r' | b'.' | b'\x0b' | b'\x0c')
}

/// Is `byte` one of the bytes of [`Masks::token_end`]?
#[inline(always)]
#[must_use]
pub const fn is_token_end(byte: u8) -> bool {
    matches!(
        byte,
        b' ' | b'\t'
            | b'\n'
            | b'\r'
            | b'\x0b'
            | b'\x0c'
            | b'{'
            | b'}'
            | b'('
            | b')'
            | b'!'
            | b'?'
            | b'$'
            | b';'
            | b'.'
            | b'*'
            | b'['
    )
}

/// The masks of `block`, a byte at a time: the definition the SIMD
/// paths are tested against.
#[must_use]
pub fn classify_scalar(block: &[u8; BLOCK]) -> Masks {
    let mut masks = Masks::default();
    for (i, &b) in block.iter().enumerate() {
        let bit = 1u64 << i;
        if b == b'\n' {
            masks.newline |= bit;
        }
        if is_blank(b) {
            masks.blank |= bit;
        }
        if b == b'}' {
            masks.close_brace |= bit;
        }
        if is_token_end(b) {
            masks.token_end |= bit;
        }
        if b.is_ascii_digit() {
            masks.digit |= bit;
        }
    }
    masks
}

/// How [`classify`] classifies on this CPU.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub enum Level {
    /// A byte at a time ([`classify_scalar`]).
    Scalar,
    /// 16 bytes at a time (x86-64's baseline).
    Sse2,
    /// 32 bytes at a time (x86-64 CPUs that have it, detected at run
    /// time).
    Avx2,
}

/// The fastest level this CPU has.
#[must_use]
pub fn detected() -> Level {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            return Level::Avx2;
        }
        Level::Sse2
    }
    #[cfg(not(target_arch = "x86_64"))]
    Level::Scalar
}

/// The levels this CPU can run, the scalar one first (for the tests that
/// compare them).
#[must_use]
pub fn available() -> Vec<Level> {
    let mut levels = vec![Level::Scalar];
    #[cfg(target_arch = "x86_64")]
    {
        levels.push(Level::Sse2);
        if detected() == Level::Avx2 {
            levels.push(Level::Avx2);
        }
    }
    levels
}

/// The masks of `block`, with SIMD where the CPU has it.
#[inline]
#[must_use]
pub fn classify(block: &[u8; BLOCK]) -> Masks {
    static LEVEL: std::sync::OnceLock<Level> = std::sync::OnceLock::new();
    classify_at(*LEVEL.get_or_init(detected), block)
}

/// The masks of `block` at `level`, which must be one of [`available`]
/// (else the scalar path is taken).
#[must_use]
pub fn classify_at(level: Level, block: &[u8; BLOCK]) -> Masks {
    match level {
        #[cfg(target_arch = "x86_64")]
        Level::Sse2 => x86::classify_sse2(block),
        #[cfg(target_arch = "x86_64")]
        Level::Avx2 if std::arch::is_x86_feature_detected!("avx2") => {
            // SAFETY: the CPU has AVX2, checked just above.
            #[allow(unsafe_code)]
            unsafe {
                x86::classify_avx2(block)
            }
        }
        _ => classify_scalar(block),
    }
}

/// The offset of the first `}` in `bytes` (the end of a `{` comment):
/// the first 32 bytes 16 a step with SSE2 on x86-64 (inlined: no
/// dispatch; most comments end there), the rest of a long comment (an
/// engine's, hundreds of bytes) by memchr, whose wide steps cost a
/// fraction of the 16-byte loop's; memchr elsewhere.
#[inline(always)]
#[must_use]
pub fn find_close_brace(bytes: &[u8]) -> Option<usize> {
    #[cfg(target_arch = "x86_64")]
    {
        let mut i = 0;
        while i < 32 {
            let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) else {
                break;
            };
            let found = x86::eq_mask16(chunk, b'}');
            if found != 0 {
                return Some(i + found.trailing_zeros() as usize);
            }
            i += 16;
        }
        memchr::memchr(b'}', &bytes[i..]).map(|j| i + j)
    }
    #[cfg(not(target_arch = "x86_64"))]
    memchr::memchr(b'}', bytes)
}

/// [`find_close_brace`], and whether the comment holds a `%` (every
/// `[%…]` command does), noted in the same pass: `None` for a comment that
/// ends within its first 32 bytes (a Lichess clock comment: its reader
/// looks at those few bytes itself, and the pass costs nothing more), or
/// one that ends past the bytes given. An engine's comment of a master
/// game runs to hundreds of bytes without a `%`; its reader then need not
/// search them again.
///
/// ```
/// use notation::pgn::lex::classify::find_close_brace_noting_percent as find;
///
/// let close = |bytes: &[u8]| bytes.iter().position(|&b| b == b'}');
/// let lichess = b" [%clk 0:03:00] } e4";
/// assert_eq!(find(lichess), (close(lichess), None));
/// let engine = b"d=36, sd=95, mt=18576, tl=1622168, s=118076, n=15797157, tb=83} Nf6";
/// assert_eq!(find(engine), (close(engine), Some(false)));
/// let annotated = b"A long comment about the position before [%clk 0:03:00] } Nf6";
/// assert_eq!(find(annotated), (close(annotated), Some(true)));
/// assert_eq!(find(&annotated[..40]), (None, None));
/// ```
#[inline(always)]
#[must_use]
pub fn find_close_brace_noting_percent(bytes: &[u8]) -> (Option<usize>, Option<bool>) {
    /// Bytes passed over before the `%` is noted.
    const SHORT: usize = 32;
    #[cfg(target_arch = "x86_64")]
    {
        let mut i = 0;
        // The short comment: as `find_close_brace`.
        while i < SHORT {
            let Some(chunk) = bytes.get(i..).and_then(<[u8]>::first_chunk::<16>) else {
                return (memchr::memchr(b'}', &bytes[i..]).map(|j| i + j), None);
            };
            let found = x86::eq_mask16(chunk, b'}');
            if found != 0 {
                return (Some(i + found.trailing_zeros() as usize), None);
            }
            i += 16;
        }
        // A long one: the `%` of the bytes passed over, then the rest in
        // one search for the first `}` or `%` (memchr's wide steps; the
        // 16-byte loop with a second compare cost 5 instructions more a
        // step than it saved).
        let first = bytes.first_chunk::<16>();
        let second = bytes.get(16..).and_then(<[u8]>::first_chunk::<16>);
        let percent = match (first, second) {
            (Some(a), Some(b)) => (x86::eq_mask16(a, b'%') | x86::eq_mask16(b, b'%')) != 0,
            // (Not reached: both steps were taken.)
            _ => bytes[..SHORT.min(bytes.len())].contains(&b'%'),
        };
        let rest = &bytes[i..];
        match memchr::memchr2(b'}', b'%', rest) {
            Some(j) if rest[j] == b'}' => (Some(i + j), Some(percent)),
            Some(j) => match memchr::memchr(b'}', &rest[j..]) {
                Some(k) => (Some(i + j + k), Some(true)),
                None => (None, None),
            },
            None => (None, None),
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    (find_close_brace(bytes), None)
}

/// The digits, dots and spaces of 16 bytes, as bitmasks (bit `i` is
/// byte `i`; bits 16 and up are clear): what a move number (`12...`) and
/// the spaces after it span, found in one step.
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct NumberMasks {
    /// `0`–`9` (as [`Masks::digit`]).
    pub digit: u32,
    /// `.`.
    pub dot: u32,
    /// ` `.
    pub space: u32,
}

/// [`NumberMasks`] of `chunk`, a byte at a time: the definition.
#[must_use]
pub fn number_masks_scalar(chunk: &[u8; 16]) -> NumberMasks {
    let mut masks = NumberMasks::default();
    for (i, &b) in chunk.iter().enumerate() {
        masks.digit |= u32::from(b.is_ascii_digit()) << i;
        masks.dot |= u32::from(b == b'.') << i;
        masks.space |= u32::from(b == b' ') << i;
    }
    masks
}

/// [`NumberMasks`] of `chunk`: with SSE2 on x86-64 (inlined, no
/// dispatch), else [`number_masks_scalar`].
#[inline(always)]
#[must_use]
pub fn number_masks(chunk: &[u8; 16]) -> NumberMasks {
    #[cfg(target_arch = "x86_64")]
    {
        x86::number_masks_sse2(chunk)
    }
    #[cfg(not(target_arch = "x86_64"))]
    number_masks_scalar(chunk)
}

/// Is `byte` one of a tag name's: a letter, a digit or `_`?
#[inline(always)]
#[must_use]
pub const fn is_name_byte(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || byte == b'_'
}

/// Is `byte` one that may go on a PGN symbol (standard 7): a letter, a
/// digit, or one of `_ + # = : -`? A tag name uses only the first three
/// kinds (standard 8.1); one with the others is read, with a warning.
#[inline(always)]
#[must_use]
pub const fn is_symbol_byte(byte: u8) -> bool {
    SYMBOL_BYTES[byte as usize]
}

/// [`is_symbol_byte`] of every byte: one load where the name's scan stops
/// (the usual name ends at a space, which the SIMD step found).
const SYMBOL_BYTES: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        let byte = b as u8;
        table[b] = is_name_byte(byte) || matches!(byte, b'+' | b'#' | b'=' | b':' | b'-');
        b += 1;
    }
    table
};

/// Is `byte` where a tag value's scan stops: its closing `"`, a `\\`
/// (which escapes the next byte) or the end of its line?
#[inline(always)]
#[must_use]
pub const fn is_value_stop(byte: u8) -> bool {
    matches!(byte, b'"' | b'\\' | b'\n')
}

/// The bytes of 16 that matter in a tag pair, as bitmasks (bit `i` is
/// byte `i`; bits 16 and up are clear).
#[derive(Copy, Clone, Debug, Default, PartialEq, Eq)]
pub struct TagMasks {
    /// [`is_name_byte`].
    pub name: u32,
    /// [`is_value_stop`].
    pub value_stop: u32,
}

/// [`TagMasks`] of `chunk`, a byte at a time: the definition.
#[must_use]
pub fn tag_masks_scalar(chunk: &[u8; 16]) -> TagMasks {
    let mut masks = TagMasks::default();
    for (i, &b) in chunk.iter().enumerate() {
        masks.name |= u32::from(is_name_byte(b)) << i;
        masks.value_stop |= u32::from(is_value_stop(b)) << i;
    }
    masks
}

/// [`TagMasks`] of `chunk`: with SSE2 on x86-64 (inlined, no dispatch),
/// else [`tag_masks_scalar`].
#[inline(always)]
#[must_use]
pub fn tag_masks(chunk: &[u8; 16]) -> TagMasks {
    #[cfg(target_arch = "x86_64")]
    {
        x86::tag_masks_sse2(chunk)
    }
    #[cfg(not(target_arch = "x86_64"))]
    tag_masks_scalar(chunk)
}

/// Is `byte` one that passing over a game must look at, whatever
/// follows: a newline, `(`, `)`, `[`, `;`, `*`, `{` (a comment to skip)
/// or `}`?
#[inline(always)]
#[must_use]
pub const fn is_skim_stop(byte: u8) -> bool {
    matches!(byte, b'\n' | b'(' | b')' | b'[' | b';' | b'*' | b'{' | b'}')
}

/// Does `byte`, followed by `next`, look like the start of a
/// termination marker: a `0` or `1` then `-`, `/` or the first byte of
/// an en or em dash, or the first byte of `½`? (At the end of the
/// input, a `0` or `1` may be one too: the caller looks.)
#[inline(always)]
#[must_use]
pub const fn may_start_marker(byte: u8, next: u8) -> bool {
    byte == 0xc2 || (matches!(byte, b'0' | b'1') && matches!(next, b'-' | b'/' | 0xe2))
}

/// The first 16 bytes of `window` that passing over a game must look at
/// ([`is_skim_stop`] or [`may_start_marker`], the next byte being the
/// window's next), as a bitmask, a byte at a time: the definition.
#[must_use]
pub fn skim_mask_scalar(window: &[u8; 17]) -> u32 {
    let mut mask = 0;
    for i in 0..16 {
        let (b, next) = (window[i], window[i + 1]);
        mask |= u32::from(is_skim_stop(b) || may_start_marker(b, next)) << i;
    }
    mask
}

/// [`skim_mask_scalar`]: with SSE2 on x86-64 (inlined, no dispatch),
/// else the scalar definition.
#[inline(always)]
#[must_use]
pub fn skim_mask(window: &[u8; 17]) -> u32 {
    #[cfg(target_arch = "x86_64")]
    {
        x86::skim_mask_sse2(window)
    }
    #[cfg(not(target_arch = "x86_64"))]
    skim_mask_scalar(window)
}

#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
mod x86 {
    use super::{Masks, BLOCK};
    use std::arch::x86_64::{
        __m128i, __m256i, _mm256_add_epi8, _mm256_cmpeq_epi8, _mm256_cmpgt_epi8,
        _mm256_loadu_si256, _mm256_movemask_epi8, _mm256_or_si256, _mm256_set1_epi8, _mm_add_epi8,
        _mm_and_si128, _mm_cmpeq_epi8, _mm_cmplt_epi8, _mm_loadu_si128, _mm_movemask_epi8,
        _mm_or_si128, _mm_set1_epi8,
    };

    /// Bit `i`: `chunk[i] == needle`.
    #[inline(always)]
    pub(super) fn eq_mask16(chunk: &[u8; 16], needle: u8) -> u32 {
        // SAFETY: `chunk` is 16 readable bytes (an unaligned load), and
        // SSE2 is part of every x86-64 CPU.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let eq = _mm_cmpeq_epi8(v, _mm_set1_epi8(needle as i8));
            _mm_movemask_epi8(eq) as u16 as u32
        }
    }

    /// [`super::number_masks_scalar`], 16 bytes at once.
    #[inline(always)]
    pub(super) fn number_masks_sse2(chunk: &[u8; 16]) -> super::NumberMasks {
        // SAFETY: `chunk` is 16 readable bytes (an unaligned load), and
        // SSE2 is part of every x86-64 CPU.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let bits = |m: __m128i| _mm_movemask_epi8(m) as u16 as u32;
            let shifted = _mm_add_epi8(v, _mm_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8));
            let digit = _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8 + 10) as i8));
            super::NumberMasks {
                digit: bits(digit),
                dot: bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(b'.' as i8))),
                space: bits(_mm_cmpeq_epi8(v, _mm_set1_epi8(b' ' as i8))),
            }
        }
    }

    /// [`super::skim_mask_scalar`], 16 bytes at once.
    #[inline(always)]
    pub(super) fn skim_mask_sse2(window: &[u8; 17]) -> u32 {
        // SAFETY: `window` is 17 readable bytes, so both unaligned loads
        // (bytes 0..16 and 1..17) are in it, and SSE2 is part of every
        // x86-64 CPU.
        unsafe {
            let v = _mm_loadu_si128(window.as_ptr().cast::<__m128i>());
            let next = _mm_loadu_si128(window.as_ptr().add(1).cast::<__m128i>());
            let eq = |v: __m128i, b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            let stop = _mm_or_si128(
                _mm_or_si128(
                    _mm_or_si128(eq(v, b'\n'), eq(v, b'(')),
                    _mm_or_si128(eq(v, b')'), eq(v, b'[')),
                ),
                _mm_or_si128(
                    _mm_or_si128(eq(v, b';'), eq(v, b'*')),
                    _mm_or_si128(eq(v, b'{'), eq(v, b'}')),
                ),
            );
            // `0` or `1`: `b - '0'` below 2, as a signed comparison of the
            // bytes moved down by 128.
            let shifted = _mm_add_epi8(v, _mm_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8));
            let zero_one = _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8 + 2) as i8));
            let dash = _mm_or_si128(_mm_or_si128(eq(next, b'-'), eq(next, b'/')), eq(next, 0xe2));
            let marker = _mm_or_si128(_mm_and_si128(zero_one, dash), eq(v, 0xc2));
            _mm_movemask_epi8(_mm_or_si128(stop, marker)) as u16 as u32
        }
    }

    /// [`super::tag_masks_scalar`], 16 bytes at once.
    #[inline(always)]
    pub(super) fn tag_masks_sse2(chunk: &[u8; 16]) -> super::TagMasks {
        // SAFETY: `chunk` is 16 readable bytes (an unaligned load), and
        // SSE2 is part of every x86-64 CPU.
        unsafe {
            let v = _mm_loadu_si128(chunk.as_ptr().cast::<__m128i>());
            let bits = |m: __m128i| _mm_movemask_epi8(m) as u16 as u32;
            let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
            // `v - low` below `len`, unsigned: a signed comparison of the
            // bytes moved down by 128.
            let below = |v: __m128i, low: u8, len: u8| {
                let shifted = _mm_add_epi8(v, _mm_set1_epi8(0x80u8.wrapping_sub(low) as i8));
                _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8 + len) as i8))
            };
            let letter = below(_mm_or_si128(v, _mm_set1_epi8(0x20)), b'a', 26);
            let name = _mm_or_si128(_mm_or_si128(letter, below(v, b'0', 10)), eq(b'_'));
            let stop = _mm_or_si128(_mm_or_si128(eq(b'"'), eq(b'\\')), eq(b'\n'));
            super::TagMasks {
                name: bits(name),
                value_stop: bits(stop),
            }
        }
    }

    /// One class test of 16 bytes: the masks' bits for bytes `at..at+16`.
    ///
    /// # Safety
    /// The CPU must have SSE2 (every x86-64 CPU does).
    #[inline(always)]
    unsafe fn masks16(v: __m128i) -> [u64; 5] {
        // SAFETY (of every call below): the caller's.
        unsafe { masks16_sse2(v) }
    }

    #[target_feature(enable = "sse2")]
    fn masks16_sse2(v: __m128i) -> [u64; 5] {
        let eq = |b: u8| _mm_cmpeq_epi8(v, _mm_set1_epi8(b as i8));
        let bits = |m: __m128i| u64::from(_mm_movemask_epi8(m) as u16);
        let newline = eq(b'\n');
        let close = eq(b'}');
        let core = _mm_or_si128(
            _mm_or_si128(eq(b' '), eq(b'\t')),
            _mm_or_si128(eq(b'\r'), eq(b'.')),
        );
        let blank = _mm_or_si128(core, _mm_or_si128(eq(0x0b), eq(0x0c)));
        let punct = _mm_or_si128(
            _mm_or_si128(
                _mm_or_si128(eq(b'{'), eq(b'(')),
                _mm_or_si128(eq(b')'), eq(b'!')),
            ),
            _mm_or_si128(
                _mm_or_si128(eq(b'?'), eq(b'$')),
                _mm_or_si128(_mm_or_si128(eq(b';'), eq(b'*')), eq(b'[')),
            ),
        );
        let token_end = _mm_or_si128(_mm_or_si128(blank, newline), _mm_or_si128(close, punct));
        // `b - '0'` below 10, as a signed comparison of the bytes moved
        // down by 128.
        let shifted = _mm_add_epi8(v, _mm_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8));
        let digit = _mm_cmplt_epi8(shifted, _mm_set1_epi8((0x80u8 + 10) as i8));
        [
            bits(newline),
            bits(blank),
            bits(close),
            bits(token_end),
            bits(digit),
        ]
    }

    /// [`super::classify_scalar`], 16 bytes at a time.
    pub(super) fn classify_sse2(block: &[u8; BLOCK]) -> Masks {
        let mut out = [0u64; 5];
        for (k, chunk) in block.chunks_exact(16).enumerate() {
            // SAFETY: `chunk` is 16 readable bytes (an unaligned load),
            // and SSE2 is part of every x86-64 CPU.
            let bits = unsafe { masks16(_mm_loadu_si128(chunk.as_ptr().cast::<__m128i>())) };
            for (acc, bits) in out.iter_mut().zip(bits) {
                *acc |= bits << (16 * k);
            }
        }
        let [newline, blank, close_brace, token_end, digit] = out;
        Masks {
            newline,
            blank,
            close_brace,
            token_end,
            digit,
        }
    }

    /// [`super::classify_scalar`], 32 bytes at a time.
    ///
    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn classify_avx2(block: &[u8; BLOCK]) -> Masks {
        let mut out = [0u64; 5];
        for (k, chunk) in block.chunks_exact(32).enumerate() {
            // SAFETY: `chunk` is 32 readable bytes (an unaligned load);
            // the caller checked that the CPU has AVX2.
            let v = unsafe { _mm256_loadu_si256(chunk.as_ptr().cast::<__m256i>()) };
            let eq = |b: u8| _mm256_cmpeq_epi8(v, _mm256_set1_epi8(b as i8));
            let bits = |m: __m256i| u64::from(_mm256_movemask_epi8(m) as u32);
            let or = |a, b| _mm256_or_si256(a, b);
            let newline = eq(b'\n');
            let close = eq(b'}');
            let core = or(or(eq(b' '), eq(b'\t')), or(eq(b'\r'), eq(b'.')));
            let blank = or(core, or(eq(0x0b), eq(0x0c)));
            let punct = or(
                or(or(eq(b'{'), eq(b'(')), or(eq(b')'), eq(b'!'))),
                or(or(eq(b'?'), eq(b'$')), or(or(eq(b';'), eq(b'*')), eq(b'['))),
            );
            let token_end = or(or(blank, newline), or(close, punct));
            let shifted = _mm256_add_epi8(v, _mm256_set1_epi8((0x80u8.wrapping_sub(b'0')) as i8));
            let digit = _mm256_cmpgt_epi8(_mm256_set1_epi8((0x80u8 + 10) as i8), shifted);
            let shift = 32 * k;
            out[0] |= bits(newline) << shift;
            out[1] |= bits(blank) << shift;
            out[2] |= bits(close) << shift;
            out[3] |= bits(token_end) << shift;
            out[4] |= bits(digit) << shift;
        }
        let [newline, blank, close_brace, token_end, digit] = out;
        Masks {
            newline,
            blank,
            close_brace,
            token_end,
            digit,
        }
    }
}
