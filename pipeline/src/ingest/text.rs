//! Publishers' text encodings, decoded by hand into UTF-8 before a file is parsed: what a connector of a
//! publisher's own download needs when the file is not UTF-8.
//!
//! - UNDP's HDR composite CSV is single-byte Latin-1 / Windows-1252 (`Côte d'Ivoire` is the byte `0xF4`);
//!   decoding it as UTF-8 fails, so [`decode_latin1`] maps each byte to the char of the same number.
//! - The IMF's WEO "all" and query-export files (`.xls` by name) are tab-separated text: UTF-16 little-endian
//!   without a BOM from October 2020 on (a BOM is accepted), ISO-8859-1 before (`WEOApr2019all.xls`).
//!   [`decode_detected`] tells the two apart.
//!
//! A UTF-8 BOM is stripped wherever one is found, since spreadsheet re-saves add it.

/// The encoding a file was decoded from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextEncoding {
    /// UTF-8 (a leading BOM dropped).
    Utf8,
    /// UTF-16 little-endian (a leading BOM `FF FE` dropped).
    Utf16Le,
    /// ISO-8859-1: one byte, one char.
    Latin1,
}

/// Decodes single-byte Latin-1 text: each byte becomes the char with its number (`0xF4` → `ô`). Never
/// fails. (Windows-1252's 0x80–0x9F punctuation is read as the C1 controls of the same numbers; the HDR
/// file holds none.)
pub fn decode_latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&byte| char::from(byte)).collect()
}

/// Decodes UTF-16 little-endian text, a leading BOM (`FF FE`) dropped.
///
/// # Errors
/// A message naming the byte offset of an odd trailing byte or of an unpaired surrogate.
pub fn decode_utf16le(bytes: &[u8]) -> Result<String, String> {
    let bytes = bytes.strip_prefix(&[0xFF, 0xFE]).unwrap_or(bytes);
    if !bytes.len().is_multiple_of(2) {
        return Err(format!(
            "UTF-16LE text of odd length ({} bytes): the last byte at offset {} is half a character",
            bytes.len(),
            bytes.len() - 1
        ));
    }
    let units = bytes
        .chunks_exact(2)
        .map(|pair| u16::from_le_bytes([pair[0], pair[1]]));
    let mut text = String::with_capacity(bytes.len() / 2);
    for (index, decoded) in char::decode_utf16(units).enumerate() {
        match decoded {
            Ok(character) => text.push(character),
            Err(error) => {
                return Err(format!(
                    "invalid UTF-16LE at byte offset {}: unpaired surrogate {:#06x}",
                    index * 2,
                    error.unpaired_surrogate()
                ));
            }
        }
    }
    Ok(text)
}

/// Decodes a text file whose encoding the publisher changed between releases (the IMF WEO files):
/// UTF-16LE when it starts with the BOM `FF FE` or its first two bytes are an ASCII character and `00`
/// (the BOM-less export begins `43 00` = `C`); else UTF-8 when the bytes are valid UTF-8 (a BOM dropped);
/// else Latin-1.
///
/// # Errors
/// A message from [`decode_utf16le`] when the file looks like UTF-16LE but does not decode.
pub fn decode_detected(bytes: &[u8]) -> Result<(String, TextEncoding), String> {
    let utf16 = bytes.starts_with(&[0xFF, 0xFE])
        || (bytes.len() >= 2 && bytes[0] != 0 && bytes[0].is_ascii() && bytes[1] == 0);
    if utf16 {
        return Ok((decode_utf16le(bytes)?, TextEncoding::Utf16Le));
    }
    let unmarked = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(bytes);
    match std::str::from_utf8(unmarked) {
        Ok(text) => Ok((text.to_string(), TextEncoding::Utf8)),
        Err(_) => Ok((decode_latin1(unmarked), TextEncoding::Latin1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn latin1_maps_each_byte_to_its_char() {
        assert_eq!(decode_latin1(b"C\xF4te d'Ivoire"), "Côte d'Ivoire");
        assert_eq!(decode_latin1(b"T\xFCrkiye"), "Türkiye");
    }

    #[test]
    fn utf16le_with_and_without_bom() {
        let bare = [0x43, 0x00, 0x6F, 0x00]; // "Co", as the WEO export starts
        assert_eq!(decode_utf16le(&bare).unwrap(), "Co");
        let marked = [0xFF, 0xFE, 0x43, 0x00, 0x6F, 0x00];
        assert_eq!(decode_utf16le(&marked).unwrap(), "Co");
        let error = decode_utf16le(&[0x43, 0x00, 0x6F]).unwrap_err();
        assert!(error.contains("odd length"), "{error}");
        let error = decode_utf16le(&[0x00, 0xD8, 0x41, 0x00]).unwrap_err();
        assert!(error.contains("unpaired surrogate 0xd800"), "{error}");
    }

    #[test]
    fn detection_tells_utf16_utf8_and_latin1_apart() {
        let (text, encoding) = decode_detected(&[0x43, 0x00, 0x6F, 0x00]).unwrap();
        assert_eq!((text.as_str(), encoding), ("Co", TextEncoding::Utf16Le));
        let (text, encoding) = decode_detected(&[0xFF, 0xFE, 0x43, 0x00]).unwrap();
        assert_eq!((text.as_str(), encoding), ("C", TextEncoding::Utf16Le));
        let (text, encoding) = decode_detected("\u{feff}Côte".as_bytes()).unwrap();
        assert_eq!((text.as_str(), encoding), ("Côte", TextEncoding::Utf8));
        let (text, encoding) = decode_detected(b"C\xF4te").unwrap();
        assert_eq!((text.as_str(), encoding), ("Côte", TextEncoding::Latin1));
    }
}
