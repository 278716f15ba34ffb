//! Chinese and Japanese, whose words are not separated by spaces. The Unicode word rules (UAX #29) give each Han
//! character and each hiragana as a word of its own, which the length filter would drop. Here a run of Han
//! characters is cut into words with jieba's Chinese dictionary (jieba-rs, with its hidden Markov model for words
//! the dictionary lacks), and a run of hiragana is read whole; katakana runs are already one word under UAX #29.
//! Japanese kanji go through the Chinese dictionary too: compounds it shares with Chinese come out whole, the
//! others in pieces of one or two characters.

use std::sync::OnceLock;

use unicode_segmentation::UnicodeSegmentation;

/// The scripts read in runs rather than one character at a time.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Run {
    Han,
    Hiragana,
}

/// Which run a UAX #29 word belongs to, by its first character: a Han character or a hiragana (each of which
/// UAX #29 makes a word), or neither.
fn run_of(word: &str) -> Option<Run> {
    let first = word.chars().next()?;
    if is_han(first) {
        Some(Run::Han)
    } else if ('\u{3041}'..='\u{309F}').contains(&first) {
        Some(Run::Hiragana)
    } else {
        None
    }
}

/// A Han character (a CJK unified or compatibility ideograph, the iteration mark 々 or the ideographic zero 〇).
fn is_han(character: char) -> bool {
    matches!(character,
        '\u{3400}'..='\u{4DBF}'
        | '\u{4E00}'..='\u{9FFF}'
        | '\u{F900}'..='\u{FAFF}'
        | '\u{20000}'..='\u{2FA1F}'
        | '\u{3005}'
        | '\u{3007}')
}

/// Whether a character is one of the scripts written without spaces that a terminal shows two columns wide
/// (Han, kana, Hangul): it counts as two towards the length limits, so that at the default shortest length of 3
/// a single character (mostly particles and function words: 的, 了, の) is dropped and a word of two is kept.
pub(super) fn is_wide(character: char) -> bool {
    is_han(character)
        || matches!(character,
            '\u{3040}'..='\u{30FF}'
            | '\u{31F0}'..='\u{31FF}'
            | '\u{AC00}'..='\u{D7AF}'
            | '\u{1100}'..='\u{11FF}')
}

/// A word's length as the length limits count it: characters, the wide ones ([`is_wide`]) twice.
pub(super) fn filter_length(word: &str) -> usize {
    word.chars().map(|c| if is_wide(c) { 2 } else { 1 }).sum()
}

/// The dictionary, loaded on the first Han text (a few hundred milliseconds) and shared by every thread.
fn jieba() -> &'static jieba_rs::Jieba {
    static JIEBA: OnceLock<jieba_rs::Jieba> = OnceLock::new();
    JIEBA.get_or_init(jieba_rs::Jieba::new)
}

/// The words of a text that is not all ASCII, each with its byte offset, in order: those of UAX #29, except that
/// Han runs are cut by the dictionary and hiragana runs are one word. Returns whether the text held Han
/// characters.
pub(super) fn words<'a>(text: &'a str, emit: &mut impl FnMut(usize, &'a str)) -> bool {
    let mut han = false;
    // The run being gathered: its script, start and end.
    let mut pending: Option<(Run, usize, usize)> = None;
    let mut flush = |pending: &mut Option<(Run, usize, usize)>,
                     emit: &mut dyn FnMut(usize, &'a str)| {
        match pending.take() {
            Some((Run::Han, start, end)) => {
                han = true;
                cut_han(&text[start..end], start, emit);
            }
            Some((Run::Hiragana, start, end)) => emit(start, &text[start..end]),
            None => {}
        }
    };
    for (start, word) in text.unicode_word_indices() {
        let run = run_of(word);
        if let (Some((kind, _, end)), Some(this)) = (&mut pending, run)
            && *kind == this
            && *end == start
        {
            *end = start + word.len();
            continue;
        }
        flush(&mut pending, emit);
        match run {
            Some(kind) => pending = Some((kind, start, start + word.len())),
            None => emit(start, word),
        }
    }
    flush(&mut pending, emit);
    han
}

/// The most Han characters cut by the dictionary at once: it builds a graph of every word the run could hold,
/// in memory in proportion to the run, so a longer run (a document that is one run of a gigabyte) is cut in
/// pieces of this many characters, losing at most a word at each seam, far longer than any sentence.
const HAN_PIECE_CHARS: usize = 4096;

/// The dictionary's words of a run of Han characters that starts at byte `offset` of its text.
fn cut_han<'a>(run: &'a str, offset: usize, emit: &mut dyn FnMut(usize, &'a str)) {
    if run.chars().nth(1).is_none() {
        emit(offset, run);
        return;
    }
    let mut rest = run;
    let mut piece_offset = offset;
    while !rest.is_empty() {
        let end = rest
            .char_indices()
            .nth(HAN_PIECE_CHARS)
            .map_or(rest.len(), |(at, _)| at);
        let piece = &rest[..end];
        for token in jieba().cut(piece, true) {
            emit(
                piece_offset + token.byte_start,
                &piece[token.byte_start..token.byte_end],
            );
        }
        rest = &rest[end..];
        piece_offset += end;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn words_of(text: &str) -> (Vec<&str>, bool) {
        let mut found = Vec::new();
        let han = words(text, &mut |start, word| {
            assert_eq!(
                &text[start..start + word.len()],
                word,
                "the offset is the word's"
            );
            found.push(word);
        });
        (found, han)
    }

    #[test]
    fn a_han_run_longer_than_a_piece_is_cut_piece_by_piece_at_its_true_offsets() {
        let run = "美国航天飞机".repeat(HAN_PIECE_CHARS / 3);
        let text = format!("x {run} y");
        // `words_of` checks each word's offset against the text.
        let (found, han) = words_of(&text);
        assert!(han);
        assert_eq!(found.first(), Some(&"x"));
        assert_eq!(found.last(), Some(&"y"));
        assert_eq!(found[1..found.len() - 1].concat(), run);
    }

    #[test]
    fn han_runs_are_cut_into_dictionary_words() {
        let (found, han) = words_of("美国航天飞机发现号在太空中飞行了十二天，今天返回地球。");
        assert!(han);
        for word in ["美国", "航天飞机", "太空", "飞行", "今天", "返回", "地球"] {
            assert!(found.contains(&word), "{word} not in {found:?}");
        }
        // Every character is in exactly one word, in order.
        assert_eq!(
            found.concat(),
            "美国航天飞机发现号在太空中飞行了十二天今天返回地球"
        );
    }

    #[test]
    fn latin_words_around_han_text_are_unicode_words() {
        let (found, han) = words_of("NASA的航天飞机 launch café");
        assert!(han);
        assert_eq!(found[0], "NASA");
        assert!(found.contains(&"航天飞机"));
        assert!(found.ends_with(&["launch", "café"]));
        assert_eq!(words_of("naïve café"), (vec!["naïve", "café"], false));
    }

    #[test]
    fn japanese_kana_runs_are_whole_and_katakana_words_too() {
        let (found, han) = words_of("東京でコンピューターを使いました");
        assert!(han);
        assert!(found.contains(&"コンピューター"), "{found:?}");
        assert!(found.contains(&"で") && found.contains(&"を"), "{found:?}");
        assert!(found.contains(&"いました"), "{found:?}");
        assert_eq!(found.concat(), "東京でコンピューターを使いました");
    }

    #[test]
    fn wide_characters_count_twice_towards_the_length_limits() {
        assert_eq!(filter_length("的"), 2);
        assert_eq!(filter_length("地球"), 4);
        assert_eq!(filter_length("コンピューター"), 14);
        assert_eq!(filter_length("café"), 4);
    }
}
