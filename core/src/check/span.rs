//! Span units. Core works in UTF-8 byte offsets; the JSON wire uses UTF-16 code units (the hosted Check API is
//! JavaScript); Python indexes code points. Conversions walk the reply once for a sorted list of offsets.

/// Converts sorted-or-not byte offsets into another unit, counting `unit(c)` per char.
fn convert(s: &str, offsets: &[usize], unit: impl Fn(char) -> usize) -> Vec<usize> {
    if s.is_ascii() {
        return offsets.to_vec();
    }
    let mut order: Vec<usize> = (0..offsets.len()).collect();
    order.sort_by_key(|&i| offsets[i]);
    let mut out = vec![0; offsets.len()];
    let mut count = 0;
    let mut chars = s.char_indices().peekable();
    for i in order {
        let target = offsets[i];
        while let Some(&(b, c)) = chars.peek() {
            if b >= target {
                break;
            }
            count += unit(c);
            chars.next();
        }
        out[i] = count;
    }
    out
}

/// UTF-8 byte offsets → UTF-16 code unit offsets.
pub fn utf16_offsets(s: &str, offsets: &[usize]) -> Vec<usize> {
    convert(s, offsets, char::len_utf16)
}

/// UTF-8 byte offsets → Unicode code point offsets.
pub fn char_offsets(s: &str, offsets: &[usize]) -> Vec<usize> {
    convert(s, offsets, |_| 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn non_ascii_offsets() {
        let s = "é😀İ中$";
        let bytes: Vec<usize> = s.char_indices().map(|(b, _)| b).chain([s.len()]).collect();
        assert_eq!(utf16_offsets(s, &bytes), [0, 1, 3, 4, 5, 6]);
        assert_eq!(char_offsets(s, &bytes), [0, 1, 2, 3, 4, 5]);
        assert_eq!(utf16_offsets(s, &[s.len(), 0]), [6, 0]);
    }
}
