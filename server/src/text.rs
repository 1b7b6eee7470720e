//! Text helpers shared by the tools and the transport: how an echoed value is cut in a message.

/// `text` cut to 60 characters (code points) for echoing in a message, with `…` appended when cut.
pub fn snippet(text: &str) -> String {
    snippet_chars(text, 60)
}

/// `text` cut to its first `limit` characters, with `…` when anything was cut.
pub fn snippet_chars(text: &str, limit: usize) -> String {
    let mut characters = text.chars();
    let head: String = characters.by_ref().take(limit).collect();
    if characters.next().is_some() {
        format!("{head}…")
    } else {
        head
    }
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn a_snippet_keeps_sixty_characters_and_marks_the_cut() {
        assert_eq!(snippet("short"), "short");
        assert_eq!(snippet(&"é".repeat(60)), "é".repeat(60));
        assert_eq!(snippet(&"é".repeat(61)), format!("{}…", "é".repeat(60)));
    }
}
