//! Paging of long answers: the offset a `cursor` argument starts at and the `next_cursor` of the page
//! after, the same for every tool that pages (a cursor is the offset of the page's first item).

use super::{ToolError, arguments::snippet};

/// The page a `cursor` and `limit` select among `total` items: the offset of its first item and the
/// cursor of the next page (`None` on the last). A cursor is the offset of the page's first item, as
/// `next_cursor` gave it.
///
/// # Errors
/// As [`cursor_offset`], or [`ToolError::Invalid`] for a zero limit.
pub fn page(
    cursor: Option<&str>,
    limit: usize,
    total: usize,
) -> Result<(usize, Option<String>), ToolError> {
    if limit == 0 {
        return Err(ToolError::Invalid("limit: give 1 or more".into()));
    }
    let offset = cursor_offset(cursor, total)?;
    Ok((offset, next_cursor(offset + limit, total)))
}

/// The offset a `cursor` (a `next_cursor` this tool gave) starts at among `total` items; 0 without one.
///
/// # Errors
/// [`ToolError::Invalid`] for a cursor that is not one this tool gives for these items.
pub fn cursor_offset(cursor: Option<&str>, total: usize) -> Result<usize, ToolError> {
    let Some(cursor) = cursor else {
        return Ok(0);
    };
    cursor
        .parse::<usize>()
        .ok()
        // Only the cursor's own spelling: `01` or `+1` is not a cursor this tool gave.
        .filter(|offset| *offset < total.max(1) && offset.to_string() == cursor)
        .ok_or_else(|| {
            ToolError::Invalid(format!(
                "cursor `{}` is not a page of this answer ({total} items); pass the `next_cursor` of the previous page, or omit it for the first",
                snippet(cursor)
            ))
        })
}

/// The cursor of a page starting at `next` among `total` items, or `None` when no item is left.
pub fn next_cursor(next: usize, total: usize) -> Option<String> {
    (next < total).then(|| next.to_string())
}
