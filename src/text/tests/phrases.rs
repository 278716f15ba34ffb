//! Phrases ([`TextOptions::ngrams`]): pairs and triples of words that follow each other within a sentence once
//! the token filters have removed stop words, stemmed word by word, and filtered by document frequency.

use super::super::tokenise::ends_sentence;
use super::*;

fn pairs() -> TextOptions {
    TextOptions {
        ngrams: 2,
        stem: None,
        ..options()
    }
}

fn counted(texts: &[&str], options: &TextOptions) -> TermCounts {
    options.check().expect("valid options");
    count_terms(texts, options, &options.stop_words().expect("a list"))
}

fn phrases_of(counts: &TermCounts, document: usize) -> Vec<(String, u32)> {
    terms_of(counts, document)
        .into_iter()
        .filter(|(term, _)| term.contains(' '))
        .collect()
}

#[test]
fn pairs_follow_each_other_once_stop_words_are_removed() {
    // "the", "of" and "a" are stop words and "42" a number: "bank of america" is the pair "bank america".
    let counts = counted(
        &["The space shuttle of the Bank of America flew 42 times with a space shuttle crew"],
        &pairs(),
    );
    assert_eq!(
        phrases_of(&counts, 0),
        [
            ("space shuttle".into(), 2),
            ("america flew".into(), 1),
            ("bank america".into(), 1),
            ("flew times".into(), 1),
            ("shuttle bank".into(), 1),
            ("shuttle crew".into(), 1),
            ("times space".into(), 1),
        ]
    );
    // Words are counted as before, and only they are tokens.
    let words = counted(
        &["The space shuttle of the Bank of America flew 42 times with a space shuttle crew"],
        &TextOptions {
            ngrams: 1,
            ..pairs()
        },
    );
    let single: Vec<(String, u32)> = terms_of(&counts, 0)
        .into_iter()
        .filter(|(term, _)| !term.contains(' '))
        .collect();
    assert_eq!(single, terms_of(&words, 0));
    assert_eq!(counts.token_counts, words.token_counts);
}

#[test]
fn pairs_stay_within_sentences() {
    let counts = counted(
        &[
            "They flew to New York. York harbour was busy! Busy docks?\nNo\n\nLaunch window\r\n \r\nlunar orbit",
        ],
        &pairs(),
    );
    let found: Vec<String> = phrases_of(&counts, 0).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        found,
        [
            "busy docks",
            "flew new",
            "harbour busy",
            "launch window",
            "lunar orbit",
            "new york",
            "york harbour",
        ]
    );
    // A single line break is not a sentence's end (mail and news wrap their lines); a blank line is.
    assert!(!ends_sentence(" \n  "));
    assert!(ends_sentence(" \n\t\n"));
    assert!(ends_sentence("\r\n\r\n"));
    assert!(ends_sentence(". "));
    assert!(ends_sentence("。"));
    assert!(!ends_sentence(", "));
    assert!(!ends_sentence(" - "));
}

#[test]
fn phrases_go_through_the_document_frequency_filters() {
    // "space shuttle" is in two documents, "shuttle launch" in one; "space" in all three is dropped by max_df.
    let options = TextOptions {
        min_df: 2,
        max_df: 0.9,
        ..pairs()
    };
    let counts = counted(
        &[
            "space shuttle launch",
            "the space shuttle",
            "space probe orbit",
        ],
        &options,
    );
    assert_eq!(counts.terms, ["shuttle", "space shuttle"]);
}

#[test]
fn phrases_are_stemmed_word_by_word_and_shown_by_their_most_frequent_form() {
    let options = TextOptions {
        stem: Some("english".into()),
        ..pairs()
    };
    let counts = counted(
        &["space shuttles", "space shuttle", "the space shuttle"],
        &options,
    );
    assert_eq!(counts.terms, ["shuttl", "space", "space shuttl"]);
    assert_eq!(word_of(&counts, "space shuttl"), "space shuttle");
    // Each document holds the phrase once, whichever form it took.
    for document in 0..3 {
        assert_eq!(phrases_of(&counts, document), [("space shuttl".into(), 1)]);
    }
    assert_eq!(
        stem_word("english", "space shuttles").as_deref(),
        Some("space shuttl")
    );
}

#[test]
fn triples_add_pairs_and_three_words() {
    let options = TextOptions {
        ngrams: 3,
        ..pairs()
    };
    let counts = counted(&["new york city council"], &options);
    let found: Vec<String> = phrases_of(&counts, 0).into_iter().map(|(p, _)| p).collect();
    assert_eq!(
        found,
        [
            "city council",
            "new york",
            "new york city",
            "york city",
            "york city council",
        ]
    );
    let four = TextOptions {
        ngrams: MAX_NGRAMS + 1,
        ..pairs()
    };
    assert!(matches!(
        four.check(),
        Err(TextError::OutOfRange {
            option: TextOption::Ngrams,
            ..
        })
    ));
}

#[test]
fn unicode_text_makes_the_same_phrases_as_ascii_text() {
    // The same words, the second text with a non-ASCII word at its end (so it takes the Unicode splitter).
    let counts = counted(
        &[
            "Orbital mechanics. Space shuttle launch",
            "Orbital mechanics. Space shuttle launch café",
        ],
        &pairs(),
    );
    let ascii = phrases_of(&counts, 0);
    let mut unicode = phrases_of(&counts, 1);
    unicode.retain(|(phrase, _)| !phrase.contains("café"));
    assert_eq!(ascii, unicode);
    assert_eq!(ascii.len(), 3);
}

#[test]
fn phrases_do_not_depend_on_chunking() {
    let sentences = [
        "the space shuttle launch",
        "new york city hall. space station",
        "a shuttle to new york",
    ];
    let documents: Vec<String> = (0..900)
        .map(|i| format!("{} {}", sentences[i % 3], sentences[(i / 3) % 3]))
        .collect();
    let texts: Vec<&str> = documents.iter().map(String::as_str).collect();
    let options = TextOptions {
        ngrams: 3,
        stem: Some("english".into()),
        ..options()
    };
    let stop = options.stop_words().expect("a list");
    let whole = count_terms(&texts, &options, &stop);
    let chunks = [&texts[..250], &texts[250..]]
        .map(|part| tokenise_texts(part, &options, &stop, None))
        .into();
    let (chunked, _) = merge_chunks(chunks, &options);
    assert_eq!(whole, chunked);
    assert!(whole.terms.iter().any(|term| term == "new york citi"));
}
