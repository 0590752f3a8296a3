//! The images `read` returns as images: PNG, JPEG, GIF and WebP, known by their first bytes
//! (never by the file's name), and walked whole before a host is handed one. A host that cannot
//! decode an image it was sent may fail the model's whole turn, so a file cut short or damaged
//! in its structure is refused here instead, naming what is wrong.
//!
//! Handed bytes only; the file is read by `read`.

/// An image format `read` returns as an image.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Format {
    Png,
    Jpeg,
    Gif,
    WebP,
}

/// What the check of a whole image found wrong, as a clause (`it ends before its IEND chunk`).
pub(super) type Fault = &'static str;

/// The image format of a file of `size` bytes whose first bytes (a block of them, or all) are
/// `head`: they start with a format's signature and are not UTF-8 text, so a text file that
/// happens to start with `GIF89a` or `RIFF` is still text.
pub(super) fn format_of(head: &[u8], size: u64) -> Option<Format> {
    let format = Format::sniff(head)?;
    let text = match std::str::from_utf8(head) {
        Ok(_) => true,
        // A scalar cut by the head's end may go on after it.
        Err(e) => e.error_len().is_none() && (head.len() as u64) < size,
    };
    (!text).then_some(format)
}

impl Format {
    /// The format whose signature `head` (the file's first bytes) starts with.
    pub(super) fn sniff(head: &[u8]) -> Option<Format> {
        if head.starts_with(b"\x89PNG\r\n\x1a\n") {
            Some(Format::Png)
        } else if head.starts_with(b"\xff\xd8\xff") {
            Some(Format::Jpeg)
        } else if head.starts_with(b"GIF87a") || head.starts_with(b"GIF89a") {
            Some(Format::Gif)
        } else if head.len() >= 12 && head.starts_with(b"RIFF") && &head[8..12] == b"WEBP" {
            Some(Format::WebP)
        } else {
            None
        }
    }

    /// The format's usual name (`PNG`).
    pub(super) fn name(self) -> &'static str {
        match self {
            Format::Png => "PNG",
            Format::Jpeg => "JPEG",
            Format::Gif => "GIF",
            Format::WebP => "WebP",
        }
    }

    /// Its MIME type.
    pub(super) fn mime_type(self) -> &'static str {
        match self {
            Format::Png => "image/png",
            Format::Jpeg => "image/jpeg",
            Format::Gif => "image/gif",
            Format::WebP => "image/webp",
        }
    }

    /// Walks the whole image: its size in pixels (width, height), or what is wrong with it.
    /// Bytes after the image's end (its IEND chunk, EOI marker, trailer or RIFF length) are
    /// allowed, as decoders ignore them.
    pub(super) fn check(self, bytes: &[u8]) -> Result<(u32, u32), Fault> {
        match self {
            Format::Png => png(bytes),
            Format::Jpeg => jpeg(bytes),
            Format::Gif => gif(bytes),
            Format::WebP => webp(bytes),
        }
    }
}

// Every field is read through `field`, which answers `None` past the end, and every run of
// bytes through `slice::get`: the walks are handed whatever a file holds, so no input, however
// short or garbled, can index out of bounds. (Offsets are sums of the input's length and
// 32-bit lengths read from it, which cannot overflow a 64-bit `usize`.)

/// The `N` bytes at `at`, if the input holds them.
fn field<const N: usize>(bytes: &[u8], at: usize) -> Option<[u8; N]> {
    bytes.get(at..at.checked_add(N)?)?.try_into().ok()
}

fn be32(bytes: &[u8], at: usize) -> Option<u32> {
    field(bytes, at).map(u32::from_be_bytes)
}

fn be16(bytes: &[u8], at: usize) -> Option<u32> {
    field(bytes, at).map(|b| u32::from(u16::from_be_bytes(b)))
}

fn le16(bytes: &[u8], at: usize) -> Option<u32> {
    field(bytes, at).map(|b| u32::from(u16::from_le_bytes(b)))
}

fn le32(bytes: &[u8], at: usize) -> Option<u32> {
    field(bytes, at).map(u32::from_le_bytes)
}

fn le24(bytes: &[u8], at: usize) -> Option<u32> {
    field(bytes, at).map(|[a, b, c]| u32::from_le_bytes([a, b, c, 0]))
}

/// The largest width or height a PNG may declare (2^31 - 1, the PNG specification's bound).
const PNG_MAX_SIDE: u32 = (1 << 31) - 1;

/// PNG: the signature, an IHDR chunk first, at least one IDAT, and an IEND chunk, every chunk
/// whole with the CRC it carries (decoders refuse a critical chunk whose CRC is wrong).
fn png(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    const CUT: Fault = "it ends before its IEND chunk";
    let mut at = 8;
    let mut size = None;
    let mut pixels = false;
    loop {
        if bytes.len() < at + 12 {
            return Err(CUT);
        }
        let length = be32(bytes, at).ok_or(CUT)? as usize;
        if length > i32::MAX as usize {
            return Err("a chunk's length is out of range");
        }
        let end = at + 12 + length;
        let (Some(kind), Some(typed), Some(crc)) = (
            bytes.get(at + 4..at + 8),
            bytes.get(at + 4..at + 8 + length),
            be32(bytes, at + 8 + length),
        ) else {
            return Err(CUT);
        };
        if crc32(typed) != crc {
            return Err("a chunk's CRC does not match its bytes");
        }
        let data = &typed[4..];
        match (size, kind) {
            (None, b"IHDR") if length == 13 => {
                let (Some(width), Some(height)) = (be32(data, 0), be32(data, 4)) else {
                    return Err(CUT);
                };
                if width == 0 || height == 0 {
                    return Err("its IHDR chunk gives no size");
                }
                // The format's own bound; a host handed more would size buffers from it.
                if width > PNG_MAX_SIDE || height > PNG_MAX_SIDE {
                    return Err("its IHDR chunk gives a side over 2147483647 pixels");
                }
                size = Some((width, height));
            }
            (None, _) => return Err("it does not start with an IHDR chunk"),
            (Some(_), b"IDAT") => pixels = true,
            (Some(size), b"IEND") if pixels => return Ok(size),
            (Some(_), b"IEND") => return Err("it has no IDAT chunk, so no pixels"),
            _ => {}
        }
        at = end;
    }
}

/// JPEG: SOI, marker segments whole, a frame header (SOF) with a size before the first scan,
/// each scan's entropy-coded data, and an EOI marker.
fn jpeg(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    const CUT: Fault = "it ends before its EOI marker";
    let mut at = 2;
    let mut size = None;
    loop {
        match bytes.get(at) {
            None => return Err(CUT),
            Some(0xff) => {}
            Some(_) => return Err("a segment does not start with a marker"),
        }
        // Any number of 0xFF fill bytes may precede a marker.
        while bytes.get(at) == Some(&0xff) {
            at += 1;
        }
        let Some(&marker) = bytes.get(at) else {
            return Err(CUT);
        };
        at += 1;
        match marker {
            0xd9 => return size.ok_or("it has no frame header (SOF)"),
            // Standalone markers: no length follows.
            0x01 | 0xd0..=0xd7 => continue,
            0x00 | 0xd8 => return Err("a marker is not valid where it stands"),
            _ => {}
        }
        let length = be16(bytes, at).ok_or(CUT)? as usize;
        if length < 2 {
            return Err("a segment's length is out of range");
        }
        let end = at + length;
        if bytes.len() < end {
            return Err(CUT);
        }
        let is_frame = matches!(marker, 0xc0..=0xcf) && !matches!(marker, 0xc4 | 0xc8 | 0xcc);
        if is_frame {
            if length < 8 {
                return Err("its frame header (SOF) is too short");
            }
            let (Some(height), Some(width)) = (be16(bytes, at + 3), be16(bytes, at + 5)) else {
                return Err(CUT);
            };
            if width == 0 || height == 0 {
                return Err("its frame header (SOF) gives no size");
            }
            size = Some((width, height));
        }
        at = end;
        if marker == 0xda {
            if size.is_none() {
                return Err("a scan comes before its frame header (SOF)");
            }
            // Entropy-coded data runs to the next marker that is neither a stuffed 0xFF00
            // nor a restart marker.
            loop {
                let rest = bytes.get(at..).ok_or(CUT)?;
                let Some(ff) = memchr::memchr(0xff, rest) else {
                    return Err(CUT);
                };
                let next = at + ff + 1;
                match bytes.get(next) {
                    None => return Err(CUT),
                    Some(0x00 | 0xd0..=0xd7) => at = next + 1,
                    Some(_) => {
                        at = next - 1;
                        break;
                    }
                }
            }
        }
    }
}

/// GIF: the header with a size, the colour tables, every block whole, at least one image and
/// the trailer.
fn gif(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    const CUT: Fault = "it ends before its trailer";
    if bytes.len() < 13 {
        return Err(CUT);
    }
    let (Some(width), Some(height), Some(&packed)) =
        (le16(bytes, 6), le16(bytes, 8), bytes.get(10))
    else {
        return Err(CUT);
    };
    if width == 0 || height == 0 {
        return Err("its header gives no size");
    }
    let table = |packed: u8| {
        if packed & 0x80 != 0 {
            3 << ((packed & 7) + 1)
        } else {
            0
        }
    };
    let mut at = 13 + table(packed);
    let mut images = 0;
    // Data sub-blocks: a length byte, that many bytes, until a length of 0.
    let sub_blocks = |mut at: usize| -> Result<usize, Fault> {
        loop {
            let Some(&length) = bytes.get(at) else {
                return Err(CUT);
            };
            at += 1 + length as usize;
            if length == 0 {
                return Ok(at);
            }
        }
    };
    loop {
        match bytes.get(at) {
            None => return Err(CUT),
            Some(0x3b) if images > 0 => return Ok((width, height)),
            Some(0x3b) => return Err("it holds no image"),
            Some(0x2c) => {
                if bytes.len() < at + 11 {
                    return Err(CUT);
                }
                // The descriptor, its local colour table, the LZW code size, then the data.
                let local = *bytes.get(at + 9).ok_or(CUT)?;
                at += 10 + table(local) + 1;
                at = sub_blocks(at)?;
                images += 1;
            }
            Some(0x21) => at = sub_blocks(at + 2)?,
            Some(_) => return Err("a block of an unknown kind stands where a block should start"),
        }
    }
}

/// WebP: a RIFF container no longer than the file, whose chunks fill it exactly, starting with
/// a VP8, VP8L or VP8X chunk that gives a size, and holding an image (VP8, VP8L or ANMF).
fn webp(bytes: &[u8]) -> Result<(u32, u32), Fault> {
    const SHORT: Fault = "it is shorter than its RIFF header says";
    let end = 8 + le32(bytes, 4).ok_or(SHORT)? as usize;
    if bytes.len() < end {
        return Err(SHORT);
    }
    let mut at = 12;
    let mut size = None;
    let mut image = false;
    while at < end {
        if end < at + 8 {
            return Err("its last chunk is cut short");
        }
        const OVER: Fault = "a chunk runs past the end of its RIFF container";
        let (Some(kind), Some(length)) = (bytes.get(at..at + 4), le32(bytes, at + 4)) else {
            return Err(OVER);
        };
        let length = length as usize;
        let data = at + 8;
        // A chunk of odd length is followed by one byte of padding.
        let next = data + length + (length & 1);
        if end < data + length {
            return Err(OVER);
        }
        let data = bytes.get(data..data + length).ok_or(OVER)?;
        if size.is_none() {
            let first = match kind {
                b"VP8 " if data.get(3..6) == Some(&[0x9d, 0x01, 0x2a][..]) => le16(data, 6)
                    .zip(le16(data, 8))
                    .map(|(w, h)| (w & 0x3fff, h & 0x3fff)),
                b"VP8L" if data.first() == Some(&0x2f) => {
                    le32(data, 1).map(|bits| ((bits & 0x3fff) + 1, ((bits >> 14) & 0x3fff) + 1))
                }
                b"VP8X" => le24(data, 4)
                    .zip(le24(data, 7))
                    .map(|(w, h)| (w + 1, h + 1)),
                _ => None,
            };
            size = Some(first.ok_or("it does not start with a VP8, VP8L or VP8X chunk")?);
        }
        image |= matches!(kind, b"VP8 " | b"VP8L" | b"ANMF");
        at = next;
    }
    if at > end {
        return Err("its last chunk is cut short");
    }
    match size {
        Some((0, _) | (_, 0)) => Err("its first chunk gives no size"),
        Some(size) if image => Ok(size),
        _ => Err("it holds no image chunk"),
    }
}

/// CRC-32 as PNG computes it (ISO 3309, reflected, polynomial 0xEDB88320).
fn crc32(bytes: &[u8]) -> u32 {
    const TABLE: [u32; 256] = {
        let mut table = [0u32; 256];
        let mut n = 0;
        while n < 256 {
            let mut c = n as u32;
            let mut k = 0;
            while k < 8 {
                c = if c & 1 != 0 {
                    0xedb8_8320 ^ (c >> 1)
                } else {
                    c >> 1
                };
                k += 1;
            }
            table[n] = c;
            n += 1;
        }
        table
    };
    !bytes.iter().fold(!0u32, |c, &b| {
        TABLE[((c ^ u32::from(b)) & 0xff) as usize] ^ (c >> 8)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn crc32_is_pngs() {
        // The CRC of an IEND chunk's type, as every PNG ends with it.
        assert_eq!(crc32(b"IEND"), 0xae42_6082);
        assert_eq!(crc32(b"123456789"), 0xcbf4_3926);
    }

    #[test]
    fn signatures_name_their_format() {
        assert_eq!(Format::sniff(b"\x89PNG\r\n\x1a\n...."), Some(Format::Png));
        assert_eq!(Format::sniff(b"\xff\xd8\xff\xe0"), Some(Format::Jpeg));
        assert_eq!(Format::sniff(b"GIF89a"), Some(Format::Gif));
        assert_eq!(Format::sniff(b"RIFF\0\0\0\0WEBP"), Some(Format::WebP));
        assert_eq!(Format::sniff(b"RIFF\0\0\0\0WAVE"), None);
        assert_eq!(Format::sniff(b"<svg xmlns="), None);
        assert_eq!(Format::sniff(b""), None);
    }

    /// A JPEG's head up to its first scan's header, for a `width` x `height` frame.
    fn jpeg_head(width: u8, height: u8) -> Vec<u8> {
        let mut out = vec![0xff, 0xd8, 0xff, 0xe0, 0x00, 0x04, b'J', b'F'];
        out.extend_from_slice(&[
            0xff, 0xc2, 0x00, 0x0b, 8, 0, height, 0, width, 1, 1, 0x11, 0,
        ]);
        out.extend_from_slice(&[0xff, 0xda, 0x00, 0x08, 1, 1, 0, 0, 63, 0]);
        out
    }

    #[test]
    fn jpeg_scans_pass_over_stuffed_bytes_restart_markers_and_fill() {
        let mut bytes = jpeg_head(3, 2);
        // Stuffed 0xFF00, a restart marker, then fill bytes before a second scan.
        bytes.extend_from_slice(&[0x12, 0xff, 0x00, 0x34, 0xff, 0xd3, 0x56, 0xff, 0xff]);
        bytes.extend_from_slice(&[0xda, 0x00, 0x08, 1, 1, 0, 0, 63, 0, 0x78, 0xff, 0xd9]);
        assert_eq!(Format::Jpeg.check(&bytes), Ok((3, 2)));
        // Bytes after EOI are left to the decoder, which ignores them.
        bytes.extend_from_slice(b"trailing");
        assert_eq!(Format::Jpeg.check(&bytes), Ok((3, 2)));
        let cut = &bytes[..bytes.len() - 10];
        assert_eq!(
            Format::Jpeg.check(cut),
            Err("it ends before its EOI marker")
        );
        let mut no_frame = jpeg_head(3, 2);
        no_frame.drain(8..21);
        assert_eq!(
            Format::Jpeg.check(&no_frame),
            Err("a scan comes before its frame header (SOF)")
        );
        let mut no_size = jpeg_head(0, 2);
        no_size.extend_from_slice(&[0xff, 0xd9]);
        assert_eq!(
            Format::Jpeg.check(&no_size),
            Err("its frame header (SOF) gives no size")
        );
    }

    fn riff(chunks: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
        let mut body = b"WEBP".to_vec();
        for (kind, data) in chunks {
            body.extend_from_slice(*kind);
            body.extend_from_slice(&(data.len() as u32).to_le_bytes());
            body.extend_from_slice(data);
            if data.len() % 2 == 1 {
                body.push(0);
            }
        }
        let mut out = b"RIFF".to_vec();
        out.extend_from_slice(&(body.len() as u32).to_le_bytes());
        out.extend_from_slice(&body);
        out
    }

    #[test]
    fn webp_sizes_come_from_each_first_chunk_kind() {
        let lossy = [0, 0, 0, 0x9d, 0x01, 0x2a, 40, 0, 30, 0];
        assert_eq!(
            Format::WebP.check(&riff(&[(b"VP8 ", &lossy)])),
            Ok((40, 30))
        );
        let extended = [0, 0, 0, 0, 99, 0, 0, 49, 0, 0];
        assert_eq!(
            Format::WebP.check(&riff(&[
                (b"VP8X", &extended),
                (b"ANIM", &[0; 6]),
                (b"ANMF", &[0; 16])
            ])),
            Ok((100, 50))
        );
        assert_eq!(
            Format::WebP.check(&riff(&[(b"VP8X", &extended), (b"EXIF", b"odd")])),
            Err("it holds no image chunk")
        );
        assert_eq!(
            Format::WebP.check(&riff(&[(b"ALPH", &[0; 4])])),
            Err("it does not start with a VP8, VP8L or VP8X chunk")
        );
        let mut cut = riff(&[(b"VP8 ", &lossy)]);
        cut[4] -= 2;
        assert_eq!(
            Format::WebP.check(&cut),
            Err("a chunk runs past the end of its RIFF container")
        );
    }

    #[test]
    fn a_signature_alone_is_a_fault_and_no_bytes_panic() {
        for format in [Format::Png, Format::Jpeg, Format::Gif, Format::WebP] {
            let mut bytes = match format {
                Format::Png => b"\x89PNG\r\n\x1a\n".to_vec(),
                Format::Jpeg => b"\xff\xd8\xff".to_vec(),
                Format::Gif => b"GIF89a".to_vec(),
                Format::WebP => b"RIFF\x04\0\0\0WEBP".to_vec(),
            };
            assert!(format.check(&bytes).is_err(), "{format:?}");
            // Whatever follows, the walk answers (most of these are faults).
            for n in 0..4000u32 {
                let _ = format.check(&bytes);
                bytes.push((n.wrapping_mul(2_654_435_761) >> 13) as u8);
            }
        }
    }

    /// A PNG of one pixel (its IDAT's bytes are not decoded here).
    fn png_pixel() -> Vec<u8> {
        let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
        let ihdr = [0, 0, 0, 1, 0, 0, 0, 1, 8, 0, 0, 0, 0];
        for (kind, data) in [
            (b"IHDR", &ihdr[..]),
            (b"IDAT", &[0x78, 0x9c][..]),
            (b"IEND", &[]),
        ] {
            out.extend_from_slice(&(data.len() as u32).to_be_bytes());
            let typed = [&kind[..], data].concat();
            out.extend_from_slice(&typed);
            out.extend_from_slice(&crc32(&typed).to_be_bytes());
        }
        out
    }

    /// A GIF of one pixel: header, one image descriptor with one data sub-block, trailer.
    fn gif_pixel() -> Vec<u8> {
        let mut out = b"GIF89a\x01\0\x01\0\0\0\0".to_vec();
        out.extend_from_slice(&[0x2c, 0, 0, 0, 0, 1, 0, 1, 0, 0, 2, 2, 0x44, 0x01, 0, 0x3b]);
        out
    }

    #[test]
    fn check_answers_short_and_garbage_input_of_any_format_without_panicking() {
        let mut jpeg = jpeg_head(3, 2);
        jpeg.extend_from_slice(&[0x78, 0xff, 0xd9]);
        let webp = riff(&[(b"VP8 ", &[0, 0, 0, 0x9d, 0x01, 0x2a, 40, 0, 30, 0])]);
        let wholes = [
            (Format::Png, png_pixel(), (1, 1)),
            (Format::Jpeg, jpeg, (3, 2)),
            (Format::Gif, gif_pixel(), (1, 1)),
            (Format::WebP, webp, (40, 30)),
        ];
        let formats = wholes.each_ref().map(|(format, ..)| *format);
        for (format, whole, size) in &wholes {
            assert_eq!(format.check(whole), Ok(*size), "{format:?}");
            // Every cut of every image, handed to every format's check (so each walk also
            // meets the others' bytes): only the whole image of its own format passes.
            for n in 0..whole.len() {
                for other in formats {
                    assert!(
                        other.check(&whole[..n]).is_err(),
                        "{other:?} on {n} bytes of {format:?}"
                    );
                }
            }
        }
        // Inputs shorter than any signature, and garbage of every length up to 300 bytes.
        let mut garbage = Vec::new();
        for n in 0..300u32 {
            for format in formats {
                assert!(
                    format.check(&garbage).is_err(),
                    "{format:?} on {n} garbage bytes"
                );
                assert!(format.check(&vec![0xff; n as usize]).is_err());
                assert!(format.check(&vec![0; n as usize]).is_err());
            }
            garbage.push((n.wrapping_mul(2_654_435_761) >> 11) as u8);
        }
        // Headers whose lengths claim more than the input holds.
        assert_eq!(
            Format::WebP.check(b"RIFF"),
            Err("it is shorter than its RIFF header says")
        );
        assert_eq!(
            Format::WebP.check(b"RIFF\xff\xff\xff\xffWEBP"),
            Err("it is shorter than its RIFF header says")
        );
        assert_eq!(
            Format::Png.check(b"\x89PNG\r\n\x1a\n\x7f\xff\xff\xffIHDR\0\0\0\0"),
            Err("it ends before its IEND chunk")
        );
    }
}
