//! The image walk `fs_read` runs before it hands a host an image (`src/fs/read/image.rs`,
//! compiled in here as it is), on arbitrary bytes: the one parser in fsmcp that reads
//! untrusted binary formats.
//!
//! Oracles: nothing panics or loops (libFuzzer's timeout), whichever format the bytes are
//! walked as; and a size the walk accepts is at least 1 x 1 and within its format's own
//! bounds (PNG 2^31 - 1 a side, JPEG and GIF 65,535, WebP 2^24), so no host is handed a size
//! the format forbids.

#![no_main]

#[path = "../../src/fs/read/image.rs"]
#[allow(dead_code)]
mod image;

use image::Format;
use libfuzzer_sys::fuzz_target;

/// The largest side each format can declare.
fn max_side(format: Format) -> u32 {
    match format {
        Format::Png => (1 << 31) - 1,
        Format::Jpeg | Format::Gif => u32::from(u16::MAX),
        Format::WebP => 1 << 24,
    }
}

fuzz_target!(|data: &[u8]| {
    // The format the bytes claim, then every other, as a file renamed or cut might be read.
    for format in [Format::Png, Format::Jpeg, Format::Gif, Format::WebP] {
        if let Ok((width, height)) = format.check(data) {
            let max = max_side(format);
            assert!(
                (1..=max).contains(&width) && (1..=max).contains(&height),
                "{} accepted as {width} x {height}",
                format.name()
            );
        }
    }
    // Sniffing a prefix never panics either.
    let _ = Format::sniff(data);
});
