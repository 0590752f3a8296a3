//! Whose members a Rust `impl` block's or a Go method's definitions are, read from the head
//! of the block or the method: the syntax tree holds the type there as written (`impl<T>
//! fmt::Debug for super::Parser<T>`, `func (s *Server[T])`), and a qualified lookup wants its
//! bare name.

/// The implementing type of a Rust `impl` block, from its head: `Parser` for
/// `impl<'a, T: Read> fmt::Debug for super::Parser<'a, T> where … {`; `None` when it is not a
/// named type (a tuple, a reference to a slice …).
pub(super) fn implementing_type(item: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&item[..item.len().min(1024)]);
    let rest = head
        .trim_start()
        .strip_prefix("unsafe")
        .unwrap_or(&head)
        .trim_start();
    let mut rest = rest.strip_prefix("impl")?.trim_start();
    if rest.starts_with('<') {
        rest = &rest[closing(rest)? + 1..];
    }
    // The head ends at the body or a where clause; ` for ` splits the trait from the type, at
    // the outermost level of brackets.
    let (mut depth, mut start, mut end) = (0usize, 0usize, rest.len());
    let bytes = rest.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' | b'(' | b'[' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' | b')' | b']' => depth = depth.saturating_sub(1),
            b'{' if depth == 0 => {
                end = i;
                break;
            }
            b' ' | b'\n' | b'\t' if depth == 0 && keyword_at(bytes, i + 1, b"where") => {
                end = i;
                break;
            }
            b' ' | b'\n' | b'\t' if depth == 0 && keyword_at(bytes, i + 1, b"for") => {
                start = i + 4;
            }
            _ => {}
        }
    }
    let mut ty = rest[start.min(end)..end].trim();
    // `&'a mut dyn Type`: a reference, its lifetime, `mut`, `dyn`.
    if let Some(rest) = ty.strip_prefix('&') {
        ty = rest.trim_start();
        if ty.starts_with('\'') {
            ty = ty
                .split_once(char::is_whitespace)
                .map_or("", |(_, rest)| rest);
        }
    }
    for prefix in ["mut ", "dyn "] {
        ty = ty.strip_prefix(prefix).unwrap_or(ty).trim_start();
    }
    let ty = ty.split('<').next().unwrap_or_default();
    let ty = ty.rsplit("::").next().unwrap_or_default().trim();
    is_identifier(ty).then(|| ty.to_owned())
}

/// The receiver's type of a Go method (`Server` in `func (s *Server[T]) Serve(`).
pub(super) fn go_receiver_type(declaration: &[u8]) -> Option<String> {
    let head = String::from_utf8_lossy(&declaration[..declaration.len().min(256)]);
    let receiver = head.strip_prefix("func")?.trim_start().strip_prefix('(')?;
    let receiver = &receiver[..receiver.find(')')?];
    let receiver = receiver.split('[').next().unwrap_or_default();
    let ty = receiver.split_whitespace().last()?.trim_start_matches('*');
    is_identifier(ty).then(|| ty.to_owned())
}

/// The offset of the `>` closing the `<` that `text` starts with.
fn closing(text: &str) -> Option<usize> {
    let mut depth = 0usize;
    let bytes = text.as_bytes();
    for (i, &b) in bytes.iter().enumerate() {
        match b {
            b'<' => depth += 1,
            b'>' if i > 0 && bytes[i - 1] == b'-' => {}
            b'>' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

/// Whether `bytes` holds the word `keyword` at `at`, followed by white space.
fn keyword_at(bytes: &[u8], at: usize, keyword: &[u8]) -> bool {
    bytes.get(at..).is_some_and(|rest| {
        rest.starts_with(keyword) && rest.get(keyword.len()).is_some_and(u8::is_ascii_whitespace)
    })
}

fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn impl_heads() {
        let ty = |head: &str| implementing_type(head.as_bytes());
        assert_eq!(ty("impl Config {").as_deref(), Some("Config"));
        assert_eq!(
            ty("unsafe impl Send for Handle {}").as_deref(),
            Some("Handle")
        );
        assert_eq!(
            ty("impl<'a, T: Read<X>> fmt::Debug for super::Parser<'a, T>\nwhere\n    T: Clone,\n{")
                .as_deref(),
            Some("Parser")
        );
        assert_eq!(
            ty("impl<F: Fn() -> u8> Trait for Wrapper<F> {").as_deref(),
            Some("Wrapper")
        );
        assert_eq!(
            ty("impl<T> From<T> for &'a mut Slot<T> {").as_deref(),
            Some("Slot")
        );
        assert_eq!(ty("impl dyn Any {").as_deref(), Some("Any"));
        assert_eq!(ty("impl Trait for (A, B) {"), None);
        assert_eq!(ty("impl Trait for [u8] {"), None);
        assert_eq!(ty("impl Größe {").as_deref(), Some("Größe"));
        // Broken or cut heads yield nothing and never panic.
        for broken in [
            "impl",
            "impl<",
            "impl<<>",
            "impl é for",
            "fn x()",
            "",
            "impl<T for X {",
        ] {
            let _ = ty(broken);
        }
        assert_eq!(implementing_type(b"impl \xff\xfe {"), None);
    }

    #[test]
    fn go_receivers() {
        let ty = |head: &str| go_receiver_type(head.as_bytes());
        assert_eq!(
            ty("func (s *Server) Serve() error {").as_deref(),
            Some("Server")
        );
        assert_eq!(
            ty("func (c Client[K, V]) Get(k K) V {").as_deref(),
            Some("Client")
        );
        assert_eq!(ty("func (*Server) Close() {").as_deref(), Some("Server"));
        assert_eq!(ty("func Run() {"), None);
        assert_eq!(ty("func (s *Server"), None);
        assert_eq!(ty("func ()"), None);
    }
}
