//! The lexer's SIMD byte classification against its scalar definition:
//! every 64-byte block of the input (at every level this CPU runs) gives
//! the masks `classify_scalar` gives (and every 16 bytes the move-number
//! and tag-pair masks, and every 17 the skim mask, their scalar
//! definitions give), and the comment skip
//! finds the `}` a byte-by-byte search finds, from every `{`.

#![no_main]

use libfuzzer_sys::fuzz_target;
use notation::pgn::lex::classify::{
    available, classify, classify_at, classify_scalar, find_close_brace, number_masks,
    number_masks_scalar, skim_mask, skim_mask_scalar, tag_masks, tag_masks_scalar, BLOCK,
};

fuzz_target!(|data: &[u8]| {
    let levels = available();
    for shift in 0..data.len().min(BLOCK) {
        for block in data[shift..].chunks_exact(BLOCK) {
            let block: &[u8; BLOCK] = block.try_into().unwrap();
            let want = classify_scalar(block);
            for &level in &levels {
                assert_eq!(classify_at(level, block), want, "{level:?}");
            }
            assert_eq!(classify(block), want);
        }
    }
    for chunk in data.windows(16) {
        let chunk: &[u8; 16] = chunk.try_into().unwrap();
        assert_eq!(number_masks(chunk), number_masks_scalar(chunk));
        assert_eq!(tag_masks(chunk), tag_masks_scalar(chunk));
    }
    for window in data.windows(17) {
        let window: &[u8; 17] = window.try_into().unwrap();
        assert_eq!(skim_mask(window), skim_mask_scalar(window));
    }
    for at in (0..data.len()).filter(|&i| data[i] == b'{') {
        let rest = &data[at + 1..];
        assert_eq!(find_close_brace(rest), rest.iter().position(|&b| b == b'}'));
    }
});
