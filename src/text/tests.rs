//! The text pipeline's tests: tokens, filters, stems and document frequencies on small texts, and the fast
//! ASCII word splitter against the Unicode one.

use unicode_segmentation::UnicodeSegmentation;

use super::tokenise::ascii_words;
use super::*;

fn options() -> TextOptions {
    TextOptions {
        min_df: 1,
        max_df: 1.0,
        ..TextOptions::default()
    }
}

fn terms_of(counts: &TermCounts, document: usize) -> Vec<(String, u32)> {
    counts.documents[document]
        .iter()
        .map(|&(t, c)| (counts.terms[t as usize].clone(), c))
        .collect()
}

#[test]
fn lowercases_stems_and_drops_stop_words_numbers_and_short_tokens() {
    // "The"/"and"/"are" are stop words; "42" is a number; "an" is too short (and a stop word);
    // "Running"/"runs" both stem to "run"; "Galaxies" stems to "galaxi".
    let text = "The Running dogs and runs are 42 an Galaxies";
    let stop = options().stop_words().expect("default list");
    let counts = count_terms(&[text], &options(), &stop);
    assert_eq!(
        terms_of(&counts, 0),
        // Terms are numbered by how often they occur (ties alphabetical), so "run" comes first.
        vec![("run".into(), 2), ("dog".into(), 1), ("galaxi".into(), 1)]
    );
    assert_eq!(counts.token_counts, vec![4]);
}

#[test]
fn keep_numbers_and_lengths() {
    let text = "abc abcd 1234 12";
    let opts = TextOptions {
        keep_numbers: true,
        min_len: 4,
        max_len: 4,
        stem: None,
        stoplist: StoplistChoice::None,
        ..options()
    };
    let counts = count_terms(&[text], &opts, &HashSet::new());
    // Only the 4-character tokens survive: "abcd" and "1234".
    assert_eq!(
        terms_of(&counts, 0),
        vec![("1234".into(), 1), ("abcd".into(), 1)]
    );
}

#[test]
fn mixed_letter_digit_tokens_are_not_numbers() {
    let opts = TextOptions {
        stem: None,
        stoplist: StoplistChoice::None,
        ..options()
    };
    let counts = count_terms(&["mp3 x11 2004"], &opts, &HashSet::new());
    assert_eq!(
        terms_of(&counts, 0),
        vec![("mp3".into(), 1), ("x11".into(), 1)]
    );
}

#[test]
fn document_frequency_filters() {
    // df: apple 3, banana 2, cherry 1, date 4 (of 4 documents).
    let texts = [
        "apple banana date",
        "apple banana date",
        "apple cherry date",
        "date",
    ];
    let opts = TextOptions {
        stem: None,
        stoplist: StoplistChoice::None,
        min_df: 2,
        max_df: 0.75, // at most floor(0.75 * 4) = 3 documents: drops date
        ..TextOptions::default()
    };
    let counts = count_terms(&texts, &opts, &HashSet::new());
    assert_eq!(counts.terms, vec!["apple", "banana"]);
    assert_eq!(counts.documents[3], vec![]);
    let limited = TextOptions {
        max_terms: Some(1),
        ..opts
    };
    let counts = count_terms(&texts, &limited, &HashSet::new());
    assert_eq!(counts.terms, vec!["apple"]);
}

#[test]
fn terms_are_numbered_by_frequency_and_cut_at_a_tie_by_spelling() {
    // "zebra" occurs four times, "yak" three and "apple" twice, each in two documents.
    let texts = [
        "zebra zebra zebra yak yak apple",
        "zebra yak apple",
        "other",
    ];
    let opts = TextOptions {
        stem: None,
        stoplist: StoplistChoice::None,
        min_df: 2,
        ..options()
    };
    let counts = count_terms(&texts, &opts, &HashSet::new());
    assert_eq!(counts.terms, vec!["zebra", "yak", "apple"]);
    assert_eq!(counts.documents[0], vec![(0, 3), (1, 2), (2, 1)]);
    // Equal document frequencies: `max_terms` keeps the alphabetically first, whatever its number.
    let limited = TextOptions {
        max_terms: Some(2),
        ..opts
    };
    let counts = count_terms(&texts, &limited, &HashSet::new());
    assert_eq!(counts.terms, vec!["yak", "apple"]);
}

#[test]
fn vocabulary_is_the_same_across_chunk_boundaries() {
    // More documents than one chunk holds, so two chunks must agree on term numbers.
    let texts: Vec<String> = (0..MIN_DOCUMENTS_PER_CHUNK * 20 + 10)
        .map(|i| {
            if i % 2 == 0 {
                "alpha beta".to_string()
            } else {
                "gamma beta".to_string()
            }
        })
        .collect();
    let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
    let opts = TextOptions {
        stem: None,
        stoplist: StoplistChoice::None,
        max_df: 1.0,
        ..TextOptions::default()
    };
    let counts = count_terms(&refs, &opts, &HashSet::new());
    // "beta" is in every document, "alpha" and "gamma" in half (ties alphabetical).
    assert_eq!(counts.terms, vec!["beta", "alpha", "gamma"]);
    let last = refs.len() - 1;
    assert_eq!(
        terms_of(&counts, last),
        vec![("beta".into(), 1), ("gamma".into(), 1)]
    );
}

fn fast_words(text: &str) -> Vec<&str> {
    let mut words = Vec::new();
    ascii_words(text, &mut |word| words.push(word));
    words
}

#[test]
fn ascii_words_follow_the_unicode_word_rules() {
    for text in [
        "a:b a.b 3.14 3,000 don't a_b __x _ 3.a a.3 x1.2 1.2.3 a..b e.g. U.S.A. 1;2 a;b 'q' foo-bar a:3 3:4",
        "x_1.5 end. trailing' ,lead 9, 9. _9_ a' 'a",
    ] {
        assert_eq!(
            fast_words(text),
            text.unicode_words().collect::<Vec<_>>(),
            "{text}"
        );
    }
}

proptest::proptest! {
    #[test]
    fn ascii_words_equal_unicode_words(text in "[a-zA-Z0-9_:.',; \n\t\\-\"!?()@]{0,80}") {
        proptest::prop_assert_eq!(fast_words(&text), text.unicode_words().collect::<Vec<_>>());
    }

    /// Long runs and every ASCII character, so that words cross the eight bytes tested at once.
    #[test]
    fn long_ascii_words_equal_unicode_words(text in "([a-z]{0,20}|[A-Z0-9_]{0,12}|[\\x00-\\x7f]){0,12}") {
        proptest::prop_assert_eq!(fast_words(&text), text.unicode_words().collect::<Vec<_>>());
    }
}

/// On every ASCII post of 20 Newsgroups.
#[test]
#[ignore = "needs PDX_DATA"]
fn ascii_words_equal_unicode_words_on_20_newsgroups() {
    let data = std::env::var_os("PDX_DATA")
        .map(PathBuf::from)
        .expect("PDX_DATA names the unpacked corpora");
    let mut checked = 0;
    for split in ["20news-bydate-train", "20news-bydate-test"] {
        for entry in walkdir::WalkDir::new(data.join(split))
            .into_iter()
            .flatten()
        {
            if !entry.file_type().is_file() {
                continue;
            }
            let Ok(text) = std::fs::read_to_string(entry.path()) else {
                continue;
            };
            if text.is_ascii() {
                assert_eq!(
                    fast_words(&text),
                    text.unicode_words().collect::<Vec<_>>(),
                    "{}",
                    entry.path().display()
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 15_000, "only {checked} ASCII posts");
}

#[test]
fn stoplist_parsing_ignores_comments_and_case() {
    let words = parse_stoplist("# comment\nThe\n  and # trailing\n\n");
    assert_eq!(words.len(), 2);
    assert!(words.contains("the") && words.contains("and"));
}

#[test]
fn stoplist_file_no_stoplist_and_other_stemmers() {
    let dir = tempfile::tempdir().expect("temp dir");
    let list = dir.path().join("stop.txt");
    std::fs::write(&list, "# my list\nrocket\n").expect("write");
    let text = "the rocket and the orbits";
    let base = TextOptions {
        stem: None,
        ..options()
    };
    // A custom list replaces the shipped one: "the"/"and" stay, "rocket" goes.
    let custom = TextOptions {
        stoplist: StoplistChoice::File(list.clone()),
        ..base.clone()
    };
    let counts = count_terms(&[text], &custom, &custom.stop_words().expect("reads"));
    assert_eq!(counts.terms, vec!["the", "and", "orbits"]);
    let none = TextOptions {
        stoplist: StoplistChoice::None,
        ..base.clone()
    };
    let counts = count_terms(&[text], &none, &none.stop_words().expect("none"));
    assert_eq!(counts.terms, vec!["the", "and", "orbits", "rocket"]);
    let missing = TextOptions {
        stoplist: StoplistChoice::File(dir.path().join("absent.txt")),
        ..base
    };
    let error = missing.stop_words().expect_err("no such file");
    assert!(error.to_string().contains("absent.txt"));
    // French Snowball: "continuellement" and "continuel" share the stem "continuel".
    let french = TextOptions {
        stem: Some("french".into()),
        stoplist: StoplistChoice::None,
        ..options()
    };
    let counts = count_terms(&["continuellement continuel"], &french, &HashSet::new());
    assert_eq!(terms_of(&counts, 0), vec![("continuel".into(), 2)]);
}

#[test]
fn the_stemmer_brings_its_language_s_stop_list() {
    let text = "les chats et the cats und die Katzen";
    let terms = |options: &TextOptions| {
        options.check().expect("valid");
        count_terms(&[text], options, &options.stop_words().expect("a list")).terms
    };
    // English (the default, and without a stemmer): the shipped list, as before.
    let english = TextOptions {
        stem: None,
        ..options()
    };
    assert_eq!(english.stoplist_language(), Some("english"));
    assert_eq!(
        terms(&english),
        ["cats", "chats", "die", "katzen", "les", "und"]
    );
    assert_eq!(
        terms(&options()),
        ["cat", "chat", "die", "katzen", "les", "und"]
    );
    // French: the French list, whose "les" goes and whose "the" stays.
    let french = TextOptions {
        stem: Some("french".into()),
        ..options()
    };
    assert_eq!(french.stoplist_language(), Some("french"));
    assert_eq!(
        terms(&french),
        ["cat", "chat", "di", "katzen", "the", "und"]
    );
    // A language named whatever the stemmer: German without stemming.
    let german = TextOptions {
        stem: None,
        stoplist: StoplistChoice::Language("german".into()),
        ..options()
    };
    assert_eq!(terms(&german), ["cats", "chats", "katzen", "les", "the"]);
    let klingon = TextOptions {
        stoplist: StoplistChoice::Language("klingon".into()),
        ..options()
    };
    assert!(matches!(
        klingon.check(),
        Err(TextError::UnknownStoplistLanguage(_))
    ));
}

#[test]
fn unknown_stemmer_is_refused() {
    let opts = TextOptions {
        stem: Some("klingon".into()),
        ..TextOptions::default()
    };
    assert!(matches!(opts.check(), Err(TextError::UnknownStemmer(_))));
}

/// The word shown for `stem`, as the counts give it.
fn word_of(counts: &TermCounts, stem: &str) -> String {
    let row = counts
        .terms
        .iter()
        .position(|term| term == stem)
        .unwrap_or_else(|| panic!("no term {stem:?} in {:?}", counts.terms));
    counts.words[row].clone()
}

#[test]
fn each_stem_is_shown_as_its_most_frequent_word() {
    // "company" twice and "companies" once, over two documents: both stem to "compani".
    let texts = ["company companies", "the company"];
    let stop = options().stop_words().expect("default list");
    let counts = count_terms(&texts, &options(), &stop);
    assert_eq!(word_of(&counts, "compani"), "company");
    // The other way round, the other word wins: counted over occurrences, not documents.
    let counts = count_terms(&["companies companies company"], &options(), &stop);
    assert_eq!(word_of(&counts, "compani"), "companies");
}

#[test]
fn a_stem_whose_only_word_is_itself_shows_itself() {
    let stop = options().stop_words().expect("default list");
    let counts = count_terms(&["dog dogs", "dog"], &options(), &stop);
    assert_eq!(counts.terms, ["dog"]);
    assert_eq!(counts.words, ["dog"]);
}

#[test]
fn equally_frequent_words_give_the_alphabetically_first_whatever_the_chunking() {
    // "running" and "runs" (both "run") once each per document, in either order; with enough documents to
    // make several chunks, each chunk seeing its words in a different order.
    let documents: Vec<String> = (0..1000)
        .map(|i| {
            if i % 2 == 0 {
                "runs running".to_string()
            } else {
                "running runs".to_string()
            }
        })
        .collect();
    let texts: Vec<&str> = documents.iter().map(String::as_str).collect();
    let stop = options().stop_words().expect("default list");
    let counts = count_terms(&texts, &options(), &stop);
    assert_eq!(word_of(&counts, "run"), "running");
    let reversed: Vec<&str> = texts.iter().rev().copied().collect();
    assert_eq!(
        count_terms(&reversed, &options(), &stop).words,
        counts.words
    );
    let one_thread = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .expect("pool");
    assert_eq!(
        one_thread
            .install(|| count_terms(&texts, &options(), &stop))
            .words,
        counts.words
    );
}

#[test]
fn words_follow_their_terms_through_the_document_frequency_filters() {
    // "galaxies" occurs in one document only, so min_df 2 drops "galaxi"; the words left stay beside their terms.
    let opts = TextOptions {
        min_df: 2,
        ..options()
    };
    let stop = opts.stop_words().expect("default list");
    let counts = count_terms(
        &[
            "libraries library galaxies",
            "libraries injuries",
            "injury injuries",
        ],
        &opts,
        &stop,
    );
    assert_eq!(counts.terms, ["injuri", "librari"]);
    assert_eq!(counts.words, ["injuries", "libraries"]);
}

#[test]
fn without_stemming_no_words_are_stored() {
    let opts = TextOptions {
        stem: None,
        ..options()
    };
    let stop = opts.stop_words().expect("default list");
    let counts = count_terms(&["companies company"], &opts, &stop);
    assert_eq!(counts.terms, ["companies", "company"]);
    assert!(counts.words.is_empty(), "the terms are their own words");
}

#[test]
fn raw_counts_merge_in_blocks_the_same_on_one_thread_or_two_and_as_vectors() {
    // Words that share a stem in one document ("runs", "running") add their counts when renumbered.
    let words = [
        "runs", "running", "run", "galaxy", "galaxies", "orbit", "orbits", "comet", "nebula",
    ];
    let texts: Vec<String> = (0..3000)
        .map(|i: usize| {
            (0..(i % 13) + 1)
                .map(|k| words[(i * 7 + k * k) % words.len()])
                .collect::<Vec<_>>()
                .join(" ")
        })
        .collect();
    let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
    let stop = options().stop_words().expect("default list");
    // Chunks of more documents than a renumbering block, cut unevenly.
    let chunks = || {
        [&texts[..1700], &texts[1700..]]
            .map(|part| tokenise_texts(part, &options(), &stop, None))
            .into()
    };
    let merged = |threads: usize| {
        rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .expect("pool")
            .install(|| merge_chunks_raw(chunks(), &options()))
    };
    let (one, two) = (merged(1), merged(2));
    assert_eq!(one, two);
    let (raw, _) = one;
    assert!(raw.counts.iter().any(|&count| count > 1));
    let (_, from_vectors) = merge_chunks(chunks(), &options());
    assert_eq!(Some(raw), from_vectors);
}

/// The short-word table grows while a document is read (it starts with room for 2,048 words): every word must
/// keep its count across the growth, whatever its length or script. Checked against a plain count of the same
/// filters.
#[test]
fn a_document_with_more_distinct_words_than_the_table_holds_counts_each_once() {
    let options = TextOptions {
        stem: None,
        stoplist: StoplistChoice::None,
        ..options()
    };
    let mut text = String::new();
    for i in 0..20_000u32 {
        // Short ASCII words in mixed case, a few longer than 16 bytes, a few not ASCII; each word twice when
        // `i` is even.
        let word = match i % 7 {
            0 => format!("Longwordnumber{i:08}x"),
            1 => format!("é{i}q"),
            _ => format!("w{}Q{i}", (b'a' + (i % 26) as u8) as char),
        };
        let times = if i % 2 == 0 { 2 } else { 1 };
        for _ in 0..times {
            text.push_str(&word);
            text.push(' ');
        }
    }
    let counts = count_terms(&[&text], &options, &HashSet::new());
    let mut expected: std::collections::BTreeMap<String, u32> = Default::default();
    for word in text.unicode_words() {
        *expected.entry(word.to_lowercase()).or_default() += 1;
    }
    let found: std::collections::BTreeMap<String, u32> = terms_of(&counts, 0).into_iter().collect();
    assert_eq!(found.len(), 20_000);
    assert_eq!(found, expected);
}

mod phrases;
