//! `fs_read` of an image: a PNG, JPEG, GIF or WebP (known by its bytes, never by its name)
//! comes back as an image content block after a line saying what it is, with the file's
//! revision; one cut short or damaged, or larger than `--max-image-bytes`, is refused naming
//! what is wrong; an SVG, or a text file with an image's name or first bytes, is text.
//!
//! The images are built here, byte by byte, by small encoders of each format (a stored-deflate
//! PNG, a baseline JPEG of flat 8x8 blocks, an LZW GIF of literal codes, a lossless WebP of
//! one-symbol prefix codes), so every case knows its image's size in pixels.

// Tests build their roots with std::fs on purpose: they are the world outside the server.
#![allow(clippy::disallowed_methods)]

mod support;

use Reply::*;
use base64::Engine as _;
use serde_json::{Value, json};
use support::fs::*;
use support::*;

// ---- encoders ---------------------------------------------------------------------------------

/// CRC-32 (ISO 3309), as PNG chunks carry it.
fn crc32(bytes: &[u8]) -> u32 {
    let mut crc = !0u32;
    for &byte in bytes {
        crc ^= u32::from(byte);
        for _ in 0..8 {
            crc = if crc & 1 == 1 {
                (crc >> 1) ^ 0xedb8_8320
            } else {
                crc >> 1
            };
        }
    }
    !crc
}

fn png_chunk(out: &mut Vec<u8>, kind: &[u8; 4], data: &[u8]) {
    out.extend_from_slice(&(data.len() as u32).to_be_bytes());
    let start = out.len();
    out.extend_from_slice(kind);
    out.extend_from_slice(data);
    let crc = crc32(&out[start..]);
    out.extend_from_slice(&crc.to_be_bytes());
}

/// An RGB PNG of `width` x `height` pixels: a zlib stream of stored deflate blocks.
fn png(width: u32, height: u32) -> Vec<u8> {
    let mut raw = Vec::new();
    for y in 0..height {
        raw.push(0); // filter: none
        for x in 0..width {
            raw.extend_from_slice(&[(x * 40) as u8, (y * 60) as u8, 200]);
        }
    }
    let mut zlib = vec![0x78, 0x01];
    let blocks: Vec<&[u8]> = raw.chunks(65_535).collect();
    for (n, block) in blocks.iter().enumerate() {
        zlib.push(u8::from(n + 1 == blocks.len()));
        let len = block.len() as u16;
        zlib.extend_from_slice(&len.to_le_bytes());
        zlib.extend_from_slice(&(!len).to_le_bytes());
        zlib.extend_from_slice(block);
    }
    let (mut a, mut b) = (1u32, 0u32);
    for &byte in &raw {
        a = (a + u32::from(byte)) % 65_521;
        b = (b + a) % 65_521;
    }
    zlib.extend_from_slice(&((b << 16) | a).to_be_bytes());
    let mut ihdr = Vec::new();
    ihdr.extend_from_slice(&width.to_be_bytes());
    ihdr.extend_from_slice(&height.to_be_bytes());
    ihdr.extend_from_slice(&[8, 2, 0, 0, 0]); // 8-bit RGB, deflate, no filter, no interlace
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    png_chunk(&mut out, b"IHDR", &ihdr);
    png_chunk(&mut out, b"IDAT", &zlib);
    png_chunk(&mut out, b"IEND", &[]);
    out
}

/// A baseline greyscale JPEG of `width` x `height` mid-grey pixels: every 8x8 block is a DC
/// difference of 0 and an end of block, each a one-bit Huffman code.
fn jpeg(width: u16, height: u16) -> Vec<u8> {
    let mut out = vec![0xff, 0xd8];
    out.extend_from_slice(&[0xff, 0xdb, 0x00, 0x43, 0x00]);
    out.extend_from_slice(&[1; 64]);
    out.extend_from_slice(&[0xff, 0xc0, 0x00, 0x0b, 0x08]);
    out.extend_from_slice(&height.to_be_bytes());
    out.extend_from_slice(&width.to_be_bytes());
    out.extend_from_slice(&[0x01, 0x01, 0x11, 0x00]);
    for class in [0x00, 0x10] {
        out.extend_from_slice(&[0xff, 0xc4, 0x00, 0x14, class, 1]);
        out.extend_from_slice(&[0; 15]);
        out.push(0x00);
    }
    out.extend_from_slice(&[0xff, 0xda, 0x00, 0x08, 0x01, 0x01, 0x00, 0x00, 0x3f, 0x00]);
    let blocks = usize::from(width.div_ceil(8)) * usize::from(height.div_ceil(8));
    // Two zero bits a block, the last byte padded with one bits.
    let bits = 2 * blocks;
    out.extend(std::iter::repeat_n(0u8, bits / 8));
    if bits % 8 != 0 {
        out.push(0xff >> (bits % 8));
    }
    out.extend_from_slice(&[0xff, 0xd9]);
    out
}

/// A two-colour GIF of `width` x `height` pixels of colour 0: LZW with 2-bit codes, a clear
/// code before every two literals so the code size stays 3 bits.
fn gif(width: u16, height: u16) -> Vec<u8> {
    let mut out = b"GIF89a".to_vec();
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.extend_from_slice(&[0x80, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff]);
    out.push(0x2c);
    out.extend_from_slice(&[0, 0, 0, 0]);
    out.extend_from_slice(&width.to_le_bytes());
    out.extend_from_slice(&height.to_le_bytes());
    out.push(0);
    out.push(2); // LZW minimum code size
    let mut codes = Vec::new();
    for n in 0..usize::from(width) * usize::from(height) {
        if n % 2 == 0 {
            codes.push(4u32); // clear
        }
        codes.push(0);
    }
    codes.push(5); // end of information
    let (mut data, mut acc, mut bits) = (Vec::new(), 0u32, 0);
    for code in codes {
        acc |= code << bits;
        bits += 3;
        while bits >= 8 {
            data.push(acc as u8);
            acc >>= 8;
            bits -= 8;
        }
    }
    if bits > 0 {
        data.push(acc as u8);
    }
    for block in data.chunks(255) {
        out.push(block.len() as u8);
        out.extend_from_slice(block);
    }
    out.push(0);
    out.push(0x3b);
    out
}

/// A lossless WebP of `width` x `height` opaque black pixels: no transform, no colour cache,
/// five one-symbol prefix codes, so each pixel takes no bits at all.
fn webp(width: u32, height: u32) -> Vec<u8> {
    let mut bits: Vec<(u32, u32)> = vec![(width - 1, 14), (height - 1, 14), (0, 1), (0, 3)];
    bits.extend([(0, 1), (0, 1), (0, 1)]); // no transform, no colour cache, no meta codes
    for symbol in [None, None, None, Some(0xff), None] {
        bits.extend([(1, 1), (0, 1)]); // a simple code of one symbol
        match symbol {
            None => bits.extend([(0, 1), (0, 1)]),
            Some(s) => bits.extend([(1, 1), (s, 8)]),
        }
    }
    let mut stream = vec![0x2f];
    let (mut acc, mut n) = (0u64, 0);
    for (value, width) in bits {
        acc |= u64::from(value) << n;
        n += width;
        while n >= 8 {
            stream.push(acc as u8);
            acc >>= 8;
            n -= 8;
        }
    }
    if n > 0 {
        stream.push(acc as u8);
    }
    let mut chunk = b"VP8L".to_vec();
    chunk.extend_from_slice(&(stream.len() as u32).to_le_bytes());
    chunk.extend_from_slice(&stream);
    if stream.len() % 2 == 1 {
        chunk.push(0);
    }
    let mut out = b"RIFF".to_vec();
    out.extend_from_slice(&(4 + chunk.len() as u32).to_le_bytes());
    out.extend_from_slice(b"WEBP");
    out.extend_from_slice(&chunk);
    out
}

// ---- helpers ----------------------------------------------------------------------------------

/// The text, image block and revisions of a read that must answer with an image: a text block
/// then an image block, nothing else.
fn image_read(server: &mut Server, args: Value) -> (String, Value, Value) {
    let result = server.call_result("fs_read", args.clone());
    assert_ne!(
        result.get("isError"),
        Some(&json!(true)),
        "{args}: {result}"
    );
    let content = result["content"].as_array().expect("content");
    assert_eq!(content.len(), 2, "{args}: a text and an image: {result}");
    assert_eq!(content[0]["type"], "text", "{args}: {result}");
    assert_eq!(content[1]["type"], "image", "{args}: {result}");
    let text = content[0]["text"].as_str().expect("text").to_owned();
    (
        text,
        content[1].clone(),
        result["structuredContent"].clone(),
    )
}

fn base64(bytes: &[u8]) -> String {
    base64::engine::general_purpose::STANDARD.encode(bytes)
}

// ---- images -----------------------------------------------------------------------------------

#[test]
fn each_format_comes_back_as_its_image_with_a_line_and_the_revision() {
    let images: [(&str, Vec<u8>, &str, &str); 5] = [
        ("shot.png", png(3, 2), "image/png", "3x2"),
        ("photo.jpg", jpeg(16, 8), "image/jpeg", "16x8"),
        ("anim.gif", gif(5, 3), "image/gif", "5x3"),
        ("pic.webp", webp(7, 4), "image/webp", "7x4"),
        // Known by its bytes, not its name.
        ("diagram.txt", png(1, 1), "image/png", "1x1"),
    ];
    let mut tree = Tree::new();
    for (path, bytes, _, _) in &images {
        tree = tree.file(path, bytes);
    }
    let mut server = fs_server(&tree);
    for (path, bytes, mime, pixels) in &images {
        let (text, image, structured) = image_read(&mut server, json!({"path": path}));
        assert_eq!(
            text,
            format!("'{path}': {mime}, {pixels} pixels, {} bytes", bytes.len())
        );
        assert_eq!(image["mimeType"], *mime, "{path}");
        assert_eq!(image["data"], base64(bytes), "{path}");
        assert_eq!(
            revision(&structured, "path"),
            file_revision(bytes),
            "{path}"
        );
    }
}

#[test]
fn an_image_larger_than_the_result_limit_still_comes_back_whole() {
    // 60 KB of pixels, more than the 48,000 bytes one text answer holds: the image limit
    // governs images.
    let bytes = png(200, 100);
    assert!(bytes.len() > 60_000);
    let tree = Tree::new().file("big.png", &bytes);
    let mut server = fs_server(&tree);
    let (text, image, _) = image_read(&mut server, json!({"path": "big.png"}));
    assert_eq!(
        text,
        format!(
            "'big.png': image/png, 200x100 pixels, {} bytes",
            bytes.len()
        )
    );
    assert_eq!(image["data"], base64(&bytes));
}

#[test]
fn offset_and_limit_do_not_change_an_image() {
    let bytes = gif(2, 2);
    let tree = Tree::new().file("a.gif", &bytes);
    let mut server = fs_server(&tree);
    for args in [
        json!({"path": "a.gif", "offset": 3}),
        json!({"path": "a.gif", "offset": -1, "limit": 2}),
    ] {
        let (_, image, _) = image_read(&mut server, args);
        assert_eq!(image["data"], base64(&bytes));
    }
}

fn texts_tree() -> Tree {
    Tree::new()
        .file(
            "logo.svg",
            "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>\n",
        )
        .file("notes.png", "not a picture\n")
        .file("gif.txt", "GIF89a is the format of 1989;\n")
        .file("riff.txt", "RIFF....WEBP is how a WebP starts\n")
}

/// What is text stays text, whatever its name or first bytes.
const TEXTS: &[Case] = &[
    Case {
        name: "an SVG is text",
        tree: texts_tree,
        args: || json!({"path": "logo.svg"}),
        reply: Said("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"4\" height=\"4\"/>\n"),
        ..Case::of("fs_read")
    },
    Case {
        name: "a .png name holding text is text",
        tree: texts_tree,
        args: || json!({"path": "notes.png"}),
        reply: Said("not a picture\n"),
        ..Case::of("fs_read")
    },
    Case {
        name: "text starting as a GIF does is text",
        tree: texts_tree,
        args: || json!({"path": "gif.txt"}),
        reply: Said("GIF89a is the format of 1989;\n"),
        ..Case::of("fs_read")
    },
    Case {
        name: "text starting as a WebP does is text",
        tree: texts_tree,
        args: || json!({"path": "riff.txt", "offset": -1}),
        reply: Said("1\tRIFF....WEBP is how a WebP starts\n\n[lines 1-1 of 1 total]"),
        ..Case::of("fs_read")
    },
];

#[test]
fn text_stays_text() {
    run_cases(TEXTS);
}

// ---- damaged images ---------------------------------------------------------------------------

fn damaged(path: &str, format: &str, fault: &str) -> String {
    format!(
        "'{path}' starts as a {format} image but is damaged ({fault}) and is not UTF-8 text either, so it cannot be shown; write the image again, whole"
    )
}

#[test]
fn an_image_cut_short_or_damaged_is_refused_naming_what_is_wrong() {
    let whole = png(4, 4);
    let mut bad_crc = whole.clone();
    bad_crc[45] ^= 0x01; // inside the IDAT data (8 + 25 for IHDR, 8 for IDAT's head)
    // A changed chunk type fails its CRC before anything else is judged.
    let mut renamed = png(1, 1);
    renamed[12..16].copy_from_slice(b"IHDX");
    // 4294967295 x 4294967295 pixels, past the format's 2^31 - 1 a side, with a valid CRC.
    let mut huge = png(1, 1);
    huge[16..24].copy_from_slice(&[0xff; 8]);
    let crc = crc32(&huge[12..29]);
    huge[29..33].copy_from_slice(&crc.to_be_bytes());
    let jpg = jpeg(8, 8);
    let gif = gif(3, 3);
    let mut no_image_gif = gif[..13 + 6].to_vec();
    no_image_gif.push(0x3b);
    let webp = webp(2, 2);
    let mut long_riff = webp.clone();
    long_riff[4] += 2;
    let cases: Vec<(&str, Vec<u8>, &str, &str)> = vec![
        (
            "cut.png",
            whole[..whole.len() - 5].to_vec(),
            "PNG",
            "it ends before its IEND chunk",
        ),
        (
            "head.png",
            whole[..8].to_vec(),
            "PNG",
            "it ends before its IEND chunk",
        ),
        (
            "crc.png",
            bad_crc,
            "PNG",
            "a chunk's CRC does not match its bytes",
        ),
        (
            "renamed.png",
            renamed,
            "PNG",
            "a chunk's CRC does not match its bytes",
        ),
        (
            "huge.png",
            huge,
            "PNG",
            "its IHDR chunk gives a side over 2147483647 pixels",
        ),
        (
            "cut.jpg",
            jpg[..jpg.len() - 2].to_vec(),
            "JPEG",
            "it ends before its EOI marker",
        ),
        (
            "cut.gif",
            gif[..gif.len() - 1].to_vec(),
            "GIF",
            "it ends before its trailer",
        ),
        ("empty.gif", no_image_gif, "GIF", "it holds no image"),
        (
            "cut.webp",
            webp[..webp.len() - 1].to_vec(),
            "WebP",
            "it is shorter than its RIFF header says",
        ),
        (
            "long.webp",
            long_riff,
            "WebP",
            "it is shorter than its RIFF header says",
        ),
    ];
    let mut tree = Tree::new();
    for (path, bytes, _, _) in &cases {
        tree = tree.file(path, bytes);
    }
    let mut server = fs_server(&tree);
    for (path, bytes, format, fault) in &cases {
        assert_eq!(
            fs_error(&mut server, "fs_read", json!({"path": path})),
            damaged(path, format, fault)
        );
        // Nothing changed.
        assert_eq!(tree.bytes(path), *bytes, "{path}");
    }
}

#[test]
fn a_png_whose_first_chunk_is_not_ihdr_is_refused() {
    let mut out = b"\x89PNG\r\n\x1a\n".to_vec();
    png_chunk(
        &mut out,
        b"IDAT",
        &[0x78, 0x01, 0x01, 0, 0, 0xff, 0xff, 0, 0, 0, 1],
    );
    png_chunk(&mut out, b"IEND", &[]);
    let tree = Tree::new().file("odd.png", &out);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "odd.png"})),
        damaged("odd.png", "PNG", "it does not start with an IHDR chunk")
    );
}

// ---- limits -----------------------------------------------------------------------------------

fn over_image_limit(path: &str, format: &str, size: usize, max: u64) -> String {
    format!(
        "'{path}' is a {format} image of {size} bytes, more than {max} (the image size limit); raise it with --max-image-bytes (config key limits.max_image_bytes)"
    )
}

#[test]
fn an_image_over_the_image_limit_is_refused_with_its_size() {
    let bytes = png(8, 8);
    let tree = Tree::new().file("a.png", &bytes).file("b.jpg", jpeg(8, 8));
    let mut server = fs_server_with(&tree, &["--max-image-bytes", "100"]);
    assert!(bytes.len() > 100);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "a.png"})),
        over_image_limit("a.png", "PNG", bytes.len(), 100)
    );
    // At the limit it is read.
    let mut server = fs_server_with(&tree, &["--max-image-bytes", &bytes.len().to_string()]);
    let (_, image, _) = image_read(&mut server, json!({"path": "a.png"}));
    assert_eq!(image["data"], base64(&bytes));
}

#[test]
fn a_huge_image_is_refused_by_its_size_at_the_default_limit() {
    // 6 MiB behind a PNG signature: refused by its size, before anything else is judged.
    let mut bytes = png(1, 1);
    bytes.resize(6 << 20, 0x9c);
    let tree = Tree::new().file("huge.png", &bytes);
    let mut server = fs_server(&tree);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "huge.png"})),
        over_image_limit("huge.png", "PNG", 6 << 20, 5 << 20)
    );
}

#[test]
fn at_the_largest_image_limit_the_refusal_does_not_say_to_raise_it() {
    let mut bytes = png(1, 1);
    bytes.resize((32 << 20) + 1, 0x9c);
    let tree = Tree::new().file("huge.png", &bytes);
    let mut server = fs_server_with(&tree, &["--max-image-bytes", "33554432"]);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "huge.png"})),
        "'huge.png' is a PNG image of 33554433 bytes, more than 33554432 (the image size limit)"
    );
}

#[test]
fn the_file_size_limit_comes_before_the_image_limit() {
    let bytes = png(8, 8);
    let tree = Tree::new().file("a.png", &bytes);
    let mut server = fs_server_with(&tree, &["--max-file-bytes", "50"]);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "a.png"})),
        "'a.png' is larger than 50 bytes (the file size limit); raise it with --max-file-bytes (config key limits.max_file_bytes)"
    );
}

#[test]
fn a_config_file_sets_the_image_limit_per_root() {
    let bytes = png(8, 8);
    let tree = Tree::new().file("a.png", &bytes);
    let config = tempfile::NamedTempFile::new().expect("config file");
    std::fs::write(
        config.path(),
        json!({"roots": [{"root": tree.path(), "include": ["**"], "tools": ["fs"],
                          "limits": {"max_image_bytes": 64}}]})
        .to_string(),
    )
    .expect("write config");
    let mut server = Server::start_args(&["--config", config.path().to_str().expect("utf-8")]);
    assert_eq!(
        fs_error(&mut server, "fs_read", json!({"path": "a.png"})),
        over_image_limit("a.png", "PNG", bytes.len(), 64)
    );
}
