//! Sizes in bytes as people read them (`1.5 GiB`), for every message that names one: a kernel matrix over the
//! memory budget, the budget a flag shows as its default, a session file too large to read; and large counts with
//! their thousands grouped (`1,234,567`).

/// Bytes as the largest binary unit that keeps at least 1 (e.g. `1.5 GiB`).
pub fn format_bytes(bytes: u64) -> String {
    const UNITS: [&str; 5] = ["B", "KiB", "MiB", "GiB", "TiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

/// `1234567` as `1,234,567`.
pub fn thousands(value: u64) -> String {
    let digits = value.to_string();
    let mut text = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            text.push(',');
        }
        text.push(c);
    }
    text
}

#[cfg(test)]
mod tests {
    use super::format_bytes;

    #[test]
    fn sizes_show_in_binary_units() {
        assert_eq!(format_bytes(3 << 30), "3.0 GiB");
        assert_eq!(format_bytes(873_720), "853.2 KiB");
        assert_eq!(format_bytes(1000), "1000 B");
    }
}
