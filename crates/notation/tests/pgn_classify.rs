//! The lexer's SIMD byte classification (`pgn::lex::classify`) against
//! its scalar definition: every level this CPU runs gives the same masks
//! on random blocks and on every 64-byte block of every shared PGN file
//! (at every alignment of the file's first bytes), as do the move-number,
//! tag-pair and skim masks on every 16 bytes of them, and the comment skip
//! finds the same `}` as a byte-by-byte search.

mod common;

use notation::pgn::lex::classify::{
    available, classify, classify_at, classify_scalar, find_close_brace,
    find_close_brace_noting_percent, number_masks, number_masks_scalar, skim_mask,
    skim_mask_scalar, tag_masks, tag_masks_scalar, Level, BLOCK,
};

/// A small deterministic generator (xorshift), so a failure can be
/// replayed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A byte, half the time one the classes name (or a neighbour of
    /// one, where a range test could slip), else any byte.
    fn byte(&mut self) -> u8 {
        const NEAR: &[u8] =
            b" \t\n\r\x0b\x0c\x0a\x08\x0e{}[]()!?$;.*%/0129:\x1f\x7f\xc2\xbd\xe2\xff\x80-+";
        let r = self.next();
        if r & 1 == 0 {
            NEAR[(r >> 8) as usize % NEAR.len()]
        } else {
            (r >> 16) as u8
        }
    }
}

fn check_block(block: &[u8; BLOCK], levels: &[Level], what: &str) {
    let want = classify_scalar(block);
    for &level in levels {
        assert_eq!(
            classify_at(level, block),
            want,
            "{level:?} on {what}: {block:?}"
        );
    }
    assert_eq!(classify(block), want, "dispatch on {what}");
    // Windows at every 16 bytes, and the last (whose 17th byte is the
    // block's last).
    for at in [0, 16, 32, BLOCK - 17] {
        let window: &[u8; 17] = block[at..at + 17].try_into().unwrap();
        assert_eq!(
            skim_mask(window),
            skim_mask_scalar(window),
            "skim mask on {what}"
        );
    }
    for chunk in block.chunks_exact(16) {
        let chunk: &[u8; 16] = chunk.try_into().unwrap();
        let numbers = number_masks_scalar(chunk);
        assert_eq!(number_masks(chunk), numbers, "number masks on {what}");
        assert_eq!(
            tag_masks(chunk),
            tag_masks_scalar(chunk),
            "tag masks on {what}"
        );
        // The two scalar definitions agree on digits.
        let block_digits = classify_scalar(&{
            let mut b = [0u8; BLOCK];
            b[..16].copy_from_slice(chunk);
            b
        })
        .digit;
        assert_eq!(u64::from(numbers.digit), block_digits, "digits on {what}");
    }
}

fn check_brace_search(bytes: &[u8], what: &str) {
    let close = bytes.iter().position(|&b| b == b'}');
    assert_eq!(find_close_brace(bytes), close, "{what}");
    // The same `}`, and the `%` before it noted right (or not noted, for a
    // comment that ends within 32 bytes or not at all).
    let (found, percent) = find_close_brace_noting_percent(bytes);
    assert_eq!(found, close, "{what}: with the percent");
    match (close, percent) {
        (Some(at), Some(noted)) => {
            assert!(at >= 32, "{what}: a short comment noted");
            assert_eq!(noted, bytes[..at].contains(&b'%'), "{what}: percent");
        }
        (Some(at), None) => assert!(at < 32, "{what}: a long comment not noted"),
        (None, noted) => assert_eq!(noted, None, "{what}: no comment end"),
    }
}

#[test]
fn the_comment_skip_finds_the_brace_and_notes_the_percent_at_any_length() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let (mut long, mut with, mut without) = (0, 0, 0);
    for round in 0..20_000 {
        let len = (rng.next() % 700) as usize;
        // Mostly plain text (an engine's comment), the braces and percent
        // signs rare, so that long comments with and without each come.
        let bytes: Vec<u8> = (0..len)
            .map(|_| match rng.next() % 400 {
                0 => b'}',
                1 => b'%',
                2..=40 => rng.byte(),
                _ => b'a' + (rng.next() % 26) as u8,
            })
            .collect();
        check_brace_search(&bytes, &format!("comment {round}"));
        if let (Some(_), Some(percent)) = find_close_brace_noting_percent(&bytes) {
            long += 1;
            if percent {
                with += 1;
            } else {
                without += 1;
            }
        }
    }
    assert!(
        long > 5_000 && with > 1_000 && without > 1_000,
        "{long} {with} {without}"
    );
}

#[test]
fn every_level_gives_the_scalar_masks_on_random_blocks() {
    let levels = available();
    assert_eq!(levels[0], Level::Scalar);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for round in 0..20_000 {
        let mut block = [0u8; BLOCK];
        for b in &mut block {
            *b = rng.byte();
        }
        check_block(&block, &levels, &format!("random block {round}"));
        let len = (rng.next() % 80) as usize;
        check_brace_search(&block[..len.min(BLOCK)], &format!("random search {round}"));
    }
    // Every byte value in every position.
    for value in 0..=255u8 {
        check_block(&[value; BLOCK], &levels, &format!("all {value:#04x}"));
        for at in 0..BLOCK {
            let mut block = [b'a'; BLOCK];
            block[at] = value;
            check_block(&block, &levels, &format!("{value:#04x} at {at}"));
        }
    }
}

#[test]
fn every_level_gives_the_scalar_masks_on_every_shared_file() {
    let Some(dir) = common::shared_pgn() else {
        return;
    };
    let levels = available();
    let mut files = Vec::new();
    common::pgn_files(&dir, &mut files);
    assert!(!files.is_empty());
    let mut blocks = 0u64;
    for file in files {
        let bytes = std::fs::read(&file).expect("read");
        let what = file.display().to_string();
        for shift in [0, 1, 17, 63] {
            let Some(rest) = bytes.get(shift..) else {
                continue;
            };
            for block in rest.chunks_exact(BLOCK) {
                check_block(block.try_into().unwrap(), &levels, &what);
                blocks += 1;
            }
        }
        for (at, _) in bytes.iter().enumerate().filter(|(_, &b)| b == b'{') {
            check_brace_search(&bytes[at + 1..], &format!("{what} at {at}"));
        }
    }
    assert!(blocks > 1000, "only {blocks} blocks");
}
