//! The colours the page draws labels in: twenty one can tell apart, and a pattern for the rest.

/// Kelly's twenty-two colours of maximum contrast (Kenneth L. Kelly, "Twenty-two colors of maximum contrast",
/// Color Engineering 3(6), 1965) less the white and the black a page already uses for its ground and its text,
/// in Kelly's order, in which the first few are the most distinct from each other; as sRGB, the ISCC-NBS
/// centroids of the colours he named.
pub(super) const LABEL_COLOURS: [&str; 20] = [
    "#f3c300", // vivid yellow
    "#875692", // strong purple
    "#f38400", // vivid orange
    "#a1caf1", // very light blue
    "#be0032", // vivid red
    "#c2b280", // greyish yellow
    "#848482", // medium grey
    "#008856", // vivid green
    "#e68fac", // strong purplish pink
    "#0067a5", // strong blue
    "#f99379", // strong yellowish pink
    "#604e97", // strong violet
    "#f6a600", // vivid orange yellow
    "#b3446c", // strong purplish red
    "#dcd300", // vivid greenish yellow
    "#882d17", // strong reddish brown
    "#8db600", // vivid yellowish green
    "#654522", // deep yellowish brown
    "#e25822", // vivid reddish orange
    "#2b3d26", // dark olive green
];

/// What "other labels" (those past the twenty) are drawn in: grey stripes, so that they are no colour of the
/// twenty.
pub(super) const OTHER_LABELS: &str =
    "repeating-linear-gradient(135deg,#8a8a8a 0 3px,#e0e0e0 3px 6px)";

/// The ink for text on `colour` (`#rrggbb`, as [`LABEL_COLOURS`] writes them): black or white, whichever contrasts
/// more with it as WCAG 2 measures contrast; black for anything else (the stripes are mostly light).
pub(super) fn ink(colour: &str) -> &'static str {
    match luminance(colour) {
        // Against black, (L + 0.05) / 0.05; against white, 1.05 / (L + 0.05): equal where L is about 0.179.
        Some(light) if (light + 0.05) * (light + 0.05) < 0.05 * 1.05 => "#fff",
        _ => "#000",
    }
}

/// WCAG 2's relative luminance of a `#rrggbb` colour.
fn luminance(colour: &str) -> Option<f64> {
    let hex = colour.strip_prefix('#').filter(|hex| hex.len() == 6)?;
    let channel = |at: usize| -> Option<f64> {
        let value = f64::from(u8::from_str_radix(hex.get(at..at + 2)?, 16).ok()?) / 255.0;
        Some(match value <= 0.04045 {
            true => value / 12.92,
            false => ((value + 0.055) / 1.055).powf(2.4),
        })
    };
    Some(0.2126 * channel(0)? + 0.7152 * channel(2)? + 0.0722 * channel(4)?)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn contrast(a: f64, b: f64) -> f64 {
        (a.max(b) + 0.05) / (a.min(b) + 0.05)
    }

    /// A label's name on its chip is readable: WCAG's 4.5 for text of its size, on every colour.
    #[test]
    fn every_colour_takes_an_ink_of_enough_contrast() {
        for colour in LABEL_COLOURS {
            let ground = luminance(colour).expect("a colour");
            let text = match ink(colour) {
                "#fff" => 1.0,
                _ => 0.0,
            };
            assert!(
                contrast(ground, text) >= 4.5,
                "{colour}: {}",
                contrast(ground, text)
            );
        }
    }

    #[test]
    fn the_twenty_are_twenty() {
        let mut sorted = LABEL_COLOURS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted.len(), LABEL_COLOURS.len());
        assert!(!OTHER_LABELS.starts_with('#'));
    }
}
